// Shared by bench/run.js and the benchmarks it runs: interleaved rounds, medians, the markdown table.
/* eslint-disable @typescript-eslint/no-require-imports */
const os = require('node:os');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Runs every variant once per round, the order rotated each round (round r starts at variant r mod n), so a
 * load trend on the machine does not always favour the same variant. `variants`: { name: async () => seconds | { s, cpu } }
 * (cpu: CPU seconds of this process over the same interval as s, when the variant measures it);
 * `warmups` (optional, same keys): run once each before the first round, not measured.
 * Returns { name: [seconds per round], cpu: { name: [CPU seconds of this process per round] } }.
 */
async function interleave(variants, rounds, log = () => undefined, warmups = {}) {
  const names = Object.keys(variants);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  /** CPU seconds of this process (all its threads: sqlite3 runs on libuv's pool) per run, by variant, when reported. */
  times.cpu = Object.fromEntries(names.map((n) => [n, []]));
  // Warm-up (not measured): JIT, connection pools, the database's caches.
  for (const name of names) if (warmups[name]) await warmups[name]();
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const name of order) {
      const res = await variants[name]();
      const s = typeof res === 'number' ? res : res.s;
      times[name].push(s);
      if (typeof res !== 'number') times.cpu[name].push(res.cpu);
      log(`  round ${r + 1}/${rounds} ${name}: ${s.toFixed(3)} s${typeof res === 'number' ? '' : ` (cpu ${res.cpu.toFixed(3)} s)`}`);
    }
  }
  return times;
}

/**
 * One figure: ours against a baseline measured in the same rounds. The ratio is the median of the per-round
 * ratios (baseline time / our time: above 1 means ours is faster), not a ratio of medians.
 * `work`: units per run (rows), so rates are units/s.
 */
function figure(name, unit, work, ours, baseline, oursTimes, baseTimes, goal) {
  const ratios = oursTimes.map((t, i) => baseTimes[i] / t);
  const sorted = [...ratios].sort((a, b) => a - b);
  const at = (p) => sorted[Math.round(p * (sorted.length - 1))];
  return {
    figure: name, unit, ours, baseline, runs: ratios.length, goal,
    oursRate: work / median(oursTimes), baselineRate: work / median(baseTimes), ratio: median(ratios),
    // The spread of the per-round ratios: quartiles (nearest rank) and extremes.
    ratioQ1: at(0.25), ratioQ3: at(0.75), ratioMin: sorted[0], ratioMax: sorted[sorted.length - 1],
    oursSeconds: oursTimes, baselineSeconds: baseTimes,
    // The machine's 1-minute load average when the figure was taken (the machine is shared: read ratios with it).
    loadavg: os.loadavg()[0],
  };
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** The markdown table: figure | ours | baseline | ratio (median, with the quartiles of the per-round ratios when known) | runs,
 * with the 1-minute load average when the figure was taken. A figure with rateUnit: false shows no rates (its ratio
 * compares quantities other than throughput). */
function table(figures) {
  const lines = ['| figure | ours | baseline | ratio | runs (load) |', '|---|---|---|---|---|'];
  for (const f of figures) {
    const goal = f.goal === undefined ? '' : ` (goal ≥ ${f.goal}×${f.ratio >= f.goal ? ', met' : ', NOT met'})`;
    const spread = f.ratioQ1 === undefined ? '' : ` IQR ${f.ratioQ1.toFixed(2)}–${f.ratioQ3.toFixed(2)}`;
    const rate = (r) => (f.rateUnit === false ? '' : `: ${fmt(r)} ${f.unit}`);
    lines.push(`| ${f.figure} | ${f.ours}${rate(f.oursRate)} | ${f.baseline}${rate(f.baselineRate)} | **${f.ratio.toFixed(2)}×**${spread}${goal} | ${f.runs}${f.loadavg === undefined ? '' : ` (${f.loadavg.toFixed(1)})`} |`);
  }
  return lines.join('\n');
}

const arg = (name, def) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : def; };

/**
 * `--help` / `-h`: prints the calling script's opening comment (its usage) and exits 0, before anything runs.
 * @param file the script's path (`__filename` or `require.main.filename`)
 */
function helpAndExit(file) {
  if (!process.argv.includes('--help') && !process.argv.includes('-h')) return;
  const text = require('node:fs').readFileSync(file, 'utf8');
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(text);
  console.log(doc ? doc[1].split('\n').map((l) => l.replace(/^ \* ?/, '')).join('\n').trim() : `usage: see ${file}`);
  process.exit(0);
}

module.exports = { median, interleave, figure, table, fmt, arg, helpAndExit };
