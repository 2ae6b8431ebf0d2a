// The checks of scripts/check-words.mjs, for the vitest suite.
export function literalWords(): string[];
export function catalogueProblems(): string[];
export function unknownKeys(): string[];
export function messageProblems(): string[];
