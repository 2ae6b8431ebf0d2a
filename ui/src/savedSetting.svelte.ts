// An account setting saved whole and then tried out ("Save and test connection"): the form's
// refusals by field, its message and the try's outcome, for the forms that have one each (who
// makes the labels, how the manifest data reaches the carrier).
import { ApiError, describe } from './api';
import { problemWords } from './problems';
import { t } from './i18n/index.svelte';

export type TryOutcome = { ok: boolean; message: string };

export class SavedSetting {
  /** The words of each refused field, by the API's path of it. */
  errors = $state<Record<string, string>>({});
  message = $state('');
  result = $state<TryOutcome | null>(null);

  constructor(
    private readonly write: () => Promise<void>,
    private readonly tryOut: () => Promise<TryOutcome>,
  ) {}

  /** Saves the form; false when it was refused (each refusal then shown by its field). */
  save = async (): Promise<boolean> => {
    this.errors = {};
    this.message = '';
    this.result = null;
    try {
      await this.write();
      this.message = t('savedSetting.saved');
      return true;
    } catch (e) {
      if (e instanceof ApiError) for (const d of e.details) this.errors[d.path] = problemWords(d);
      this.message = describe(e, (p) => p in this.errors);
      return false;
    }
  };

  /** Saves, then tries what is saved. */
  test = async (): Promise<void> => {
    if (!(await this.save())) return;
    this.message = t('savedSetting.testing');
    try {
      this.result = await this.tryOut();
      this.message = '';
    } catch (e) {
      this.message = describe(e);
    }
  };
}
