// Optional sounds (issue 15, deliverable 4), off by default: played only when the
// player's `settings.sounds === true` (the callers check). Synthesised with the
// Web Audio API — a soft click for a move, a low buzz for a refusal, a short
// rising chime for a win — so there is no audio file to fetch.

let context = null;

function audio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  context ??= new Context();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/** One short tone: `freq` Hz, `wave` shape, from `at` s for `length` s, fading out. */
function tone(ctx, { freq, wave = "sine", at = 0, length = 0.08, volume = 0.12 }) {
  const start = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = wave;
  osc.frequency.setValueAtTime(freq, start);
  gain.gain.setValueAtTime(volume, start);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

const SOUNDS = {
  move: [{ freq: 880, wave: "triangle", length: 0.05, volume: 0.08 }],
  refusal: [{ freq: 160, wave: "square", length: 0.12, volume: 0.05 }],
  win: [523, 659, 784, 1047].map((freq, i) => ({ freq, wave: "triangle", at: i * 0.09, length: 0.22 })),
};

/** Play "move", "refusal" or "win". Silently nothing where audio cannot play. */
export function playSound(kind) {
  try {
    const ctx = audio();
    if (ctx) for (const t of SOUNDS[kind] || []) tone(ctx, t);
  } catch {
    /* no audio here: the game needs none */
  }
}
