//! The statuses of the records, as enums serialized as the contract's words. Each has `NAMES`
//! (for the `status` filter of lists and its error message), `as_str` and `parse`.

macro_rules! status_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $word:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
        pub enum $name {
            $(#[serde(rename = $word)] $variant),+
        }

        impl $name {
            /// Every status, in the order of a record's life.
            pub const NAMES: &'static [&'static str] = &[$($word),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $word),+
                }
            }

            pub fn parse(word: &str) -> Option<$name> {
                match word {
                    $($word => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        // In a store row the status is its word, in a text column of either database; a word
        // that is none of the enum's fails the read (it never becomes a default).
        #[cfg(feature = "sql")]
        impl rusqlite::types::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.as_str()))
            }
        }

        #[cfg(feature = "sql")]
        impl rusqlite::types::FromSql for $name {
            fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                let word = v.as_str()?;
                Self::parse(word).ok_or_else(|| {
                    rusqlite::types::FromSqlError::Other(format!("`{word}` is not a {}", stringify!($name)).into())
                })
            }
        }

        #[cfg(feature = "sql")]
        impl postgres_types::ToSql for $name {
            fn to_sql(
                &self,
                ty: &postgres_types::Type,
                out: &mut bytes::BytesMut,
            ) -> Result<postgres_types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
                postgres_types::ToSql::to_sql(&self.as_str(), ty, out)
            }

            fn accepts(ty: &postgres_types::Type) -> bool {
                <&str as postgres_types::ToSql>::accepts(ty)
            }

            postgres_types::to_sql_checked!();
        }

        #[cfg(feature = "sql")]
        impl<'a> postgres_types::FromSql<'a> for $name {
            fn from_sql(
                ty: &postgres_types::Type,
                raw: &'a [u8],
            ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
                let word = <&str as postgres_types::FromSql>::from_sql(ty, raw)?;
                Self::parse(word).ok_or_else(|| format!("`{word}` is not a {}", stringify!($name)).into())
            }

            fn accepts(ty: &postgres_types::Type) -> bool {
                <&str as postgres_types::FromSql>::accepts(ty)
            }
        }
    };
}

status_enum!(
    /// The environment a key opens: live labels are real, sandbox ones are samples. Every row of
    /// the store belongs to one.
    Env {
        Live = "live",
        Sandbox = "sandbox",
    }
);

status_enum!(
    /// A label's life: made at once (`created`) or by a job (`creating`), then voided or closed out.
    LabelStatus {
        Creating = "creating",
        Created = "created",
        Cancelling = "cancelling",
        Cancelled = "cancelled",
        Manifesting = "manifesting",
        Manifested = "manifested",
        Failed = "failed",
    }
);

status_enum!(
    AccountStatus {
        Enabled = "enabled",
        Disabled = "disabled",
        Deleted = "deleted",
    }
);

status_enum!(
    CancelStatus {
        Cancelling = "cancelling",
        Cancelled = "cancelled",
        Failed = "failed",
    }
);

status_enum!(
    ManifestStatus {
        Manifesting = "manifesting",
        Manifested = "manifested",
        Failed = "failed",
    }
);

status_enum!(
    BulkDownloadStatus {
        Creating = "creating",
        Created = "created",
        Failed = "failed",
    }
);

status_enum!(
    RateStatus {
        Calculating = "calculating",
        Calculated = "calculated",
        Failed = "failed",
    }
);

status_enum!(
    ValidationStatus {
        Valid = "valid",
        Invalid = "invalid",
    }
);

status_enum!(
    PrintJobStatus {
        Queued = "queued",
        Printing = "printing",
        Printed = "printed",
        Failed = "failed",
    }
);

status_enum!(
    /// What an async job does (a row of the job queue); `ship_order` is one order of a desk
    /// batch (`POST /desk/orders/ship`), which has no webhook of the spec's.
    JobKind {
        Label = "label",
        CancelLabel = "cancel_label",
        Manifest = "manifest",
        BulkDownload = "bulk_download",
        Rate = "rate",
        ShipOrder = "ship_order",
    }
);

impl JobKind {
    /// The webhook event of a completed job (the spec's names).
    pub fn event(self) -> WebhookEvent {
        match self {
            JobKind::Label => WebhookEvent::CreateALabel,
            JobKind::CancelLabel => WebhookEvent::CancelALabel,
            JobKind::Manifest => WebhookEvent::ManifestALabel,
            JobKind::BulkDownload => WebhookEvent::CreateABulkDownload,
            JobKind::Rate => WebhookEvent::CalculateRates,
            JobKind::ShipOrder => WebhookEvent::ShipAnOrder,
        }
    }
}

status_enum!(
    /// What a webhook delivery tells: the completion of an async job (the spec's event names).
    WebhookEvent {
        CreateALabel = "create_a_label",
        CancelALabel = "cancel_a_label",
        ManifestALabel = "manifest_a_label",
        CreateABulkDownload = "create_a_bulk_download",
        CalculateRates = "calculate_rates",
        ShipAnOrder = "ship_an_order",
    }
);

status_enum!(
    DeliveryStatus {
        Pending = "pending",
        Delivered = "delivered",
        Failed = "failed",
    }
);

status_enum!(
    /// Where a manifest's data file is on its way to the carrier: no transport set
    /// (`not_required`), waiting for its first attempt (`pending`), received (`sent`), or its last
    /// attempt failed (`failed`: tried again with back-off for 24 hours, or by "Send again").
    TransmissionStatus {
        NotRequired = "not_required",
        Pending = "pending",
        Sent = "sent",
        Failed = "failed",
    }
);

status_enum!(
    /// The way a manifest's data file goes to the carrier (`settings.manifest_transport.kind`).
    TransportKind {
        None = "none",
        Sftp = "sftp",
        Https = "https",
        Folder = "folder",
    }
);

status_enum!(
    /// A document as it is printed: what a print profile is set for (all but `test_page`) and
    /// what a print job printed (`test_page`: a printer's test page, made anew for it).
    /// `return_label` is a profile only: a return label's job prints its `label`.
    DocumentType {
        Label = "label",
        Invoice = "invoice",
        CustomsDeclaration = "customs_declaration",
        PackingSlip = "packing_slip",
        Manifest = "manifest",
        ReturnLabel = "return_label",
        CollectionSheet = "collection_sheet",
        TestPage = "test_page",
    }
);

impl DocumentType {
    /// What a print profile can be set for.
    pub const PROFILED: [DocumentType; 7] = [
        DocumentType::Label,
        DocumentType::Invoice,
        DocumentType::CustomsDeclaration,
        DocumentType::PackingSlip,
        DocumentType::Manifest,
        DocumentType::ReturnLabel,
        DocumentType::CollectionSheet,
    ];

    /// The document whose profile prints this one when it has none of its own: a return label
    /// prints where labels do until the desk gives it a printer.
    pub fn stand_in(self) -> Option<DocumentType> {
        match self {
            DocumentType::ReturnLabel => Some(DocumentType::Label),
            _ => None,
        }
    }

    /// The document's name in a sentence ("customs declaration").
    pub fn words(self) -> String {
        self.as_str().replace('_', " ")
    }
}

status_enum!(
    /// What a stored file is to its owner: a label's documents, a manifest's, a bulk download's.
    FileKind {
        Label = "label",
        Invoice = "invoice",
        CustomsDeclaration = "customs_declaration",
        PackingSlip = "packing_slip",
        Manifest = "manifest",
        CollectionSheet = "collection_sheet",
        Bulk = "bulk",
    }
);

status_enum!(
    /// How a printer is reached: the computer's spooler (a CUPS queue), raw TCP (port 9100) or IPP.
    PrinterTransport {
        Spooler = "spooler",
        Raw = "raw",
        Ipp = "ipp",
    }
);

status_enum!(
    /// What a printer takes: PDF or ZPL.
    PrinterFormat {
        Pdf = "pdf",
        Zpl = "zpl",
    }
);

status_enum!(
    /// An order's life: waiting at the desk, shipped (it has a label), or cancelled by the shop.
    OrderStatus {
        Open = "open",
        PartiallyShipped = "partially_shipped",
        Shipped = "shipped",
        Cancelled = "cancelled",
    }
);

status_enum!(
    /// What one scan at the packing list did (issue 40), as the scan's row records it: an item
    /// added (by its code, or `+1` by hand for an item without one), a code refused (not in the
    /// order, or one more than ordered), or the packing started again.
    PackEvent {
        Added = "added",
        AddedByHand = "added_by_hand",
        NotInOrder = "not_in_order",
        TooMany = "too_many",
        Restarted = "restarted",
        NextBox = "next_box",
    }
);

status_enum!(
    /// What a scan at the packing list did, as `POST /desk/orders/{id}/pack` answers it:
    /// `complete` is an item added that completed the order.
    PackResult {
        Added = "added",
        Complete = "complete",
        NotInOrder = "not_in_order",
        TooMany = "too_many",
        BoxStarted = "box_started",
    }
);

status_enum!(
    /// What a command barcode of the desk's command sheet does when scanned at the Ship screen
    /// (issue 40): its word is the code the barcode holds, so a desk works without keyboard or
    /// mouse.
    ScanCommand {
        Ship = "PDCMD-SHIP",
        ShipPacked = "PDCMD-SHIP-PACKED",
        RestartPacking = "PDCMD-RESTART-PACKING",
        NextBox = "PDCMD-NEXT-BOX",
        SwitchOperator = "PDCMD-SWITCH-OPERATOR",
    }
);

impl ScanCommand {
    /// Every command, in the order of the sheet.
    pub const ALL: [ScanCommand; 5] = [
        ScanCommand::Ship,
        ScanCommand::ShipPacked,
        ScanCommand::NextBox,
        ScanCommand::RestartPacking,
        ScanCommand::SwitchOperator,
    ];

    /// Its name on the sheet and what it does, in the operator's words.
    pub fn words(self) -> (&'static str, &'static str) {
        match self {
            ScanCommand::Ship => (
                "Ship",
                "Makes and prints the label of the order on the screen (as Enter does).",
            ),
            ScanCommand::ShipPacked => (
                "Ship what is packed",
                "Ships the items in the box now; the rest of the order stays open (a supervisor's).",
            ),
            ScanCommand::NextBox => (
                "Next box",
                "Closes the box being packed: the items scanned next go into a new box (a parcel of its own).",
            ),
            ScanCommand::RestartPacking => (
                "Start packing again",
                "Empties the order's packing list: every item is scanned again.",
            ),
            ScanCommand::SwitchOperator => (
                "Switch operator",
                "Signs the operator out; the next one scans their badge.",
            ),
        }
    }
}

status_enum!(
    /// A batch of orders shipped in the background: running until every order is shipped or failed.
    BatchStatus {
        Running = "running",
        Done = "done",
    }
);

status_enum!(
    /// One order of a batch: waiting its turn, shipped (with its label), or failed (with why).
    BatchOrderStatus {
        Queued = "queued",
        Shipped = "shipped",
        Failed = "failed",
    }
);

status_enum!(
    /// An async job (the desk's own queue, not a contract record): queued until the transaction
    /// that completes its record marks it done.
    JobState {
        Queued = "queued",
        Done = "done",
    }
);

status_enum!(
    /// What an operator may do at the desk (`README`'s table of roles): each role may do
    /// everything the one before it may.
    Role {
        Packer = "packer",
        Supervisor = "supervisor",
        Admin = "admin",
    }
);

impl Role {
    /// Whether this role may do what needs `needed`.
    pub fn may(self, needed: Role) -> bool {
        self >= needed
    }

    /// Who may do what needs this role, in words ("a supervisor or an admin").
    pub fn who_may(self) -> &'static str {
        match self {
            Role::Packer => "any operator",
            Role::Supervisor => "a supervisor or an admin",
            Role::Admin => "an admin",
        }
    }
}

status_enum!(
    /// What a named integration key may call (`/desk/api-keys`): `labels` (labels, cancels,
    /// close-outs, rates, documents), `orders` (orders and their labels), `read` (every read of its
    /// environment), `all` (everything its environment's key may).
    KeyScope {
        Labels = "labels",
        Orders = "orders",
        Read = "read",
        All = "all",
    }
);

status_enum!(
    /// When a preset makes an order's return label: with the outbound label (one in the box).
    ReturnLabelWhen {
        WithOutbound = "with_outbound",
    }
);

status_enum!(
    /// The state a returned item comes back in.
    ReturnCondition {
        Resellable = "resellable",
        Damaged = "damaged",
        Missing = "missing",
    }
);

status_enum!(
    /// A language the desk speaks (its UI and its documents): a BCP 47 primary tag.
    Language {
        English = "en",
        German = "de",
        Spanish = "es",
        French = "fr",
        Italian = "it",
        Dutch = "nl",
        Polish = "pl",
        Portuguese = "pt",
    }
);

impl Language {
    /// The desk's language of a BCP 47 tag (`pt-BR` is Portuguese, `de_AT` German), if it speaks it.
    pub fn of_tag(tag: &str) -> Option<Language> {
        let primary = tag.trim().split(['-', '_']).next().unwrap_or_default();
        Language::parse(&primary.to_ascii_lowercase())
    }
}

status_enum!(
    /// What a shipments report groups its labels by.
    ReportGroup {
        Day = "day",
        Week = "week",
        Carrier = "carrier",
        Service = "service",
        Operator = "operator",
        Desk = "desk",
    }
);
