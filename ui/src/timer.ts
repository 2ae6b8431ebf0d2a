// A timer the desk's controllers take as a parameter: the browser's by default, a fake one in
// unit tests (which then decide when time passes).
export type Timer = {
  set: (run: () => void, ms: number) => unknown;
  clear: (handle: unknown) => void;
};

export const browserTimer: Timer = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
