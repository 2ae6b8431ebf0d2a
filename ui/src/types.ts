// The records and requests of the interface, as TypeScript: generated from docs/openapi.json
// (`npm run types`), which the Rust types generate. Nothing here is written by hand but the names.
import type { components } from './generated/openapi';

type Schemas = components['schemas'];

export type Carrier = Schemas['Carrier'];
export type Registry = Schemas['Registry'];
export type ShipperAccount = Schemas['ShipperAccount'];
export type ShipperAccountList = Schemas['ShipperAccountList'];
export type ShipperAccountCreate = Schemas['ShipperAccountCreate'];
export type ShipperAccountSettingsUpdate = Schemas['ShipperAccountSettingsUpdate'];
export type ShipperAccountCredentialsUpdate = Schemas['ShipperAccountCredentialsUpdate'];
export type Label = Schemas['Label'];
export type LabelList = Schemas['LabelList'];
export type LabelRequest = Schemas['LabelRequest'];
export type Address = Schemas['Address'];
export type Parcel = Schemas['Parcel'];
export type ServiceOption = Schemas['ServiceOption'];
export type RatesRequest = Schemas['RatesRequest'];
export type RateRecord = Schemas['RateRecord'];
export type RateEntry = Schemas['RateEntry'];
export type AddressValidation = Schemas['AddressValidation'];
export type CancelLabel = Schemas['CancelLabel'];
export type BulkDownload = Schemas['BulkDownload'];
export type Printer = Schemas['Printer'];
export type PrinterRequest = Schemas['PrinterRequest'];
export type SystemPrinter = Schemas['SystemPrinter'];
export type PrintProfile = Schemas['PrintProfile'];
export type PrintProfileRequest = Schemas['PrintProfileRequest'];
export type PrintJob = Schemas['PrintJob'];
export type PrintRequest = Schemas['PrintRequest'];
export type WebhookSetting = Schemas['WebhookSetting'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type Today = Schemas['Today'];
export type AccountWaiting = Schemas['AccountWaiting'];
export type CloseOutResult = Schemas['CloseOutResult'];
export type Detail = Schemas['Detail'];
export type PrinterList = Schemas['PrinterList'];
export type SystemPrinterList = Schemas['SystemPrinterList'];
export type PrintProfileList = Schemas['PrintProfileList'];
export type PrintJobList = Schemas['PrintJobList'];
export type WebhookDeliveryList = Schemas['WebhookDeliveryList'];
export type EndOfDay = Schemas['EndOfDay'];
export type CloseOut = Schemas['CloseOut'];
export type PaperSize = Schemas['PaperSize'];
export type FileType = Schemas['FileType'];
export type CustomsPurpose = Schemas['CustomsPurpose'];
