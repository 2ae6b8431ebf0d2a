// The scan station's sounds, made with Web Audio (no files to ship or load): a packer hears each
// scan's result without looking up. Success: one short high beep; warning: two middle beeps;
// error: one low buzz.
export type Sound = 'success' | 'warning' | 'error';

const tones: Record<Sound, { hz: number; seconds: number; wave: OscillatorType }[]> = {
  success: [{ hz: 1320, seconds: 0.08, wave: 'sine' }],
  warning: [
    { hz: 660, seconds: 0.09, wave: 'triangle' },
    { hz: 660, seconds: 0.09, wave: 'triangle' },
  ],
  error: [{ hz: 180, seconds: 0.3, wave: 'square' }],
};

let context: AudioContext | null = null;

export function playSound(kind: Sound) {
  try {
    context ??= new AudioContext();
    void context.resume();
    let at = context.currentTime;
    for (const t of tones[kind]) {
      const oscillator = new OscillatorNode(context, { type: t.wave, frequency: t.hz });
      const gain = new GainNode(context, { gain: 0.15 });
      // A short fade out: no click at the end of the tone.
      gain.gain.setValueAtTime(0.15, at + t.seconds * 0.7);
      gain.gain.linearRampToValueAtTime(0, at + t.seconds);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(at);
      oscillator.stop(at + t.seconds);
      at += t.seconds + 0.06;
    }
  } catch {
    // No audio output: the note on screen says the same.
  }
}
