// Shared by the mock-broker benchmarks: start the clusters under comparison, and small helpers.
/* eslint-disable @typescript-eslint/no-require-imports */
const { fork, spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');
const { MockCluster } = require('../../dist/mock-broker');
const { arg, fmt } = require('./figures.js');

const flag = (name) => process.argv.includes(name);

/** librdkafka's mock (3 brokers) in a /usr/bin/python3 child; `topics`: [[name, partitions]]. */
function startRdkafkaMock(topics = []) {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', [path.join(__dirname, 'rdkafka_mock.py'), ...topics.map(([n, p]) => `${n}:${p}`)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => { err += c; });
    child.once('exit', (code) => reject(new Error(`librdkafka mock exited ${code}: ${err}`)));
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      const { bootstrap, librdkafka } = JSON.parse(line);
      resolve({
        name: `librdkafka ${librdkafka} mock`, bootstrap: bootstrap.split(','),
        stop: () => new Promise((r) => { child.removeAllListeners('exit'); child.once('exit', r); child.stdin.end(); setTimeout(() => child.kill('SIGKILL'), 3000).unref(); }),
      });
    });
  });
}

/** Our mock in this process (as a jest suite uses it). */
async function startOursInProcess(topics = [], options = {}) {
  const cluster = await MockCluster.start({ brokers: 3, ...options });
  for (const [name, partitions] of topics) cluster.createTopic(name, partitions, Math.min(3, partitions));
  return { name: 'kafka-eos mock (in-process)', bootstrap: cluster.bootstrap, cluster, stop: () => cluster.stop() };
}

/** Our mock alone in a child Node process (like for like with librdkafka's separate process). */
function startOursChild(topics = [], options = {}, execArgv = ['--expose-gc']) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'mock-child.js'), [JSON.stringify({ options, topics })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    child.once('exit', (code) => reject(new Error(`mock child exited ${code}`)));
    child.once('message', (m) => {
      resolve({
        name: 'kafka-eos mock (child process)', bootstrap: m.bootstrap, child,
        stats: () => new Promise((r) => { child.once('message', r); child.send('stats'); }),
        stop: () => new Promise((r) => { child.removeAllListeners('exit'); child.once('exit', r); child.send('stop'); }),
      });
    });
  });
}

const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The embedded WebHDFS server alone in a child process (webhdfs-child.js), as a NameNode and DataNode run apart from their clients: { url, stop }. */
function startWebHdfsChild() {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'webhdfs-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('exit', (code) => reject(new Error(`WebHDFS child exited ${code}`)));
    child.once('message', ({ url }) => resolve({
      url, stop: () => new Promise((r) => { child.removeAllListeners('exit'); child.once('exit', r); child.send('stop'); }),
    }));
  });
}

module.exports = { arg, flag, startRdkafkaMock, startOursInProcess, startOursChild, startWebHdfsChild, fmt, mb, sleep };
