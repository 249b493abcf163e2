// Builds the package as it was at a git commit (e.g. the consumer before issue 21, on KafkaJS's own consumer) into a
// cache folder, so a benchmark can run it beside the current build: `git archive` of the commit, this checkout's
// node_modules linked in, then its own build script. Returns the folder holding that build's dist/.
/* eslint-disable @typescript-eslint/no-require-imports */
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, symlinkSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function buildAt(commit) {
  const root = path.join(__dirname, '..', '..');
  const sha = execFileSync('git', ['rev-parse', commit], { cwd: root, encoding: 'utf8' }).trim();
  const dir = path.join(os.homedir(), '.cache', 'kafka-eos-bench', sha);
  if (existsSync(path.join(dir, 'dist', 'index.js'))) return dir;
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C "${dir}"`], { cwd: root, stdio: 'inherit' });
  if (!existsSync(path.join(dir, 'node_modules'))) symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: 'inherit' });
  return dir;
}

module.exports = { buildAt };
