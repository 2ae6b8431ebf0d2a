// Every text a user reads comes from the catalogues, and every catalogue has every key English has
// (the same check as `node scripts/check-words.mjs`, run with the unit tests so CI runs it).
import { describe, expect, it } from 'vitest';
import { catalogueProblems, literalWords, messageProblems, unknownKeys } from '../../scripts/check-words.mjs';
import { formatDate, formatNumber, formatWeight, languageOf, setLanguage, supported, t } from './index.svelte';

describe('the catalogues', () => {
  it('have every key English has, with the same arguments', () => {
    expect(catalogueProblems()).toEqual([]);
  });

  it('have every key the screens ask for', () => {
    expect(unknownKeys()).toEqual([]);
  });

  it('hold messages that parse as ICU MessageFormat in their language', () => {
    expect(messageProblems()).toEqual([]);
  });
});

describe('the components and modules', () => {
  it('show no literal text a user would read', () => {
    expect(literalWords()).toEqual([]);
  });
});

describe('the language', () => {
  it('is the operator’s, else the desk’s, else the system’s', () => {
    expect(languageOf('pl', 'de')).toBe('pl');
    expect(languageOf(null, 'de')).toBe('de');
    expect(languageOf('sv', 'pt-BR')).toBe('pt');
    expect(supported('de-AT')).toBe('de');
    expect(supported('sv')).toBeNull();
  });

  it('writes numbers, dates and weights its own way, and switches at once', async () => {
    await setLanguage('en');
    expect(formatWeight(1.5, 'kg')).toBe('1.5 kg');
    expect(formatDate('2026-11-27', { dateStyle: 'medium' })).toBe('Nov 27, 2026');
    await setLanguage('de');
    expect(formatWeight(1.5, 'kg')).toBe('1,5 kg');
    expect(formatNumber(1234.5)).toBe('1.234,5');
    expect(formatDate('2026-11-27', { dateStyle: 'medium' })).toBe('27.11.2026');
    expect(t('nav.settings')).toBe('Einstellungen');
    await setLanguage('pl');
    expect(formatWeight(1.5, 'kg')).toBe('1,5 kg');
    expect(t('nav.settings')).toBe('Ustawienia');
    await setLanguage('en');
    expect(t('nav.settings')).toBe('Settings');
  });
});
