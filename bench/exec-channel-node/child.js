// The dockerode reference path of bench/exec-channel. A long-lived child of the Java harness:
// it reads one command per line on stdin and answers one line per command, so the harness can
// interleave these calls with its own cases in the same run.
//
//   exec ID               exec create + start + demux to the end + inspect of `sh -c true`
//   cat ID PATH SIZE      the same for `cat PATH`; checks that SIZE bytes came back
//   getarchive ID PATH SIZE   GET /containers/ID/archive; checks the one tar entry's size
//   put ID DIR NAME SIZE  builds a one-entry tar of SIZE bytes and uploads it with putArchive
//   run NAME IMAGE        (bench/warm-pool) container create (named NAME, labelled
//                         dev.agentbox.bench=warm-pool, the sandbox provider's container profile)
//                         + start + the `exec` above: a new sandbox and its first exec
//   rm NAME               force-removes container NAME with its volumes (untimed cleanup)
//   quit
//
// Answer: `ok <elapsed ms>` (measured here, from before the first engine call to after the
// last, so neither the pipe nor the harness's scheduling is counted), or `err <message>`.
// Every call goes through the same Docker client, as a Node service using dockerode would.
'use strict';

const Docker = require('dockerode');
const readline = require('node:readline');
const { Writable } = require('node:stream');

const docker = new Docker({ socketPath: process.env.DOCKER_SOCKET || '/var/run/docker.sock' });

/** A sink that counts (and keeps) what is written to it. */
function sink() {
  const chunks = [];
  const w = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  w.bytes = () => Buffer.concat(chunks);
  return w;
}

/** Runs argv as an exec with stdout and stderr attached; resolves to {exitCode, stdout, stderr}. */
async function exec(id, argv) {
  const container = docker.getContainer(id);
  const e = await container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: true });
  const stream = await e.start({});
  const out = sink();
  const err = sink();
  // The engine multiplexes stdout and stderr on one stream (no TTY): demux it, and wait for its
  // end, which is the process's end (and that of anything holding its pipes).
  docker.modem.demuxStream(stream, out, err);
  await new Promise((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
  });
  // The exit code is known only to inspect; a client that needs it pays this third round trip.
  const info = await e.inspect();
  return { exitCode: info.ExitCode, stdout: out.bytes(), stderr: err.bytes() };
}

function octal(value, width) {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** A ustar archive holding one regular file NAME (mode 0644) with the given bytes. */
function tarOf(name, data) {
  const header = Buffer.alloc(512, 0);
  header.write(name, 0, 100, 'utf8');
  header.write(octal(0o644, 8), 100, 8, 'ascii');
  header.write(octal(0, 8), 108, 8, 'ascii');
  header.write(octal(0, 8), 116, 8, 'ascii');
  header.write(octal(data.length, 12), 124, 12, 'ascii');
  header.write(octal(Math.floor(Date.now() / 1000), 12), 136, 12, 'ascii');
  header.write('        ', 148, 8, 'ascii');
  header.write('0', 156, 1, 'ascii');
  header.write('ustar\0', 257, 6, 'ascii');
  header.write('00', 263, 2, 'ascii');
  let sum = 0;
  for (const b of header) sum += b;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512, 0);
  return Buffer.concat([header, data, pad, Buffer.alloc(1024, 0)]);
}

/** The size field of the first entry of a tar stream. */
function firstEntrySize(tar) {
  return parseInt(tar.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim(), 8);
}

function pattern(size) {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = 97 + (i % 26);
  return b;
}

async function collect(stream) {
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

/**
 * The container a Node service would make for one sandbox of IMAGE, with the profile the Docker
 * provider gives its own (init, network none, capabilities dropped but the few it keeps,
 * no-new-privileges, its default memory, CPU, pids and open-files limits, a keep-alive command in
 * /workspace), so the reference makes the same kind of container an ensure hands out.
 */
function sandboxContainer(name, image) {
  const memory = 2048 * 1024 * 1024;
  return {
    name,
    Image: image,
    Cmd: ['sleep', '2147483647'],
    WorkingDir: '/workspace',
    Labels: { 'dev.agentbox.bench': 'warm-pool' },
    HostConfig: {
      Init: true,
      NetworkMode: 'none',
      Privileged: false,
      SecurityOpt: ['no-new-privileges:true'],
      CapDrop: ['ALL'],
      CapAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID', 'KILL'],
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: 1e9,
      PidsLimit: 512,
      Ulimits: [{ Name: 'nofile', Soft: 8192, Hard: 8192 }],
    },
  };
}

const handlers = {
  async exec([id]) {
    const r = await exec(id, ['sh', '-c', 'true']);
    if (r.exitCode !== 0) throw new Error(`exit ${r.exitCode}`);
  },
  async cat([id, path, size]) {
    const r = await exec(id, ['cat', path]);
    if (r.exitCode !== 0) throw new Error(`cat exit ${r.exitCode}: ${r.stderr}`);
    if (r.stdout.length !== Number(size)) throw new Error(`read ${r.stdout.length} bytes`);
  },
  async getarchive([id, path, size]) {
    const tar = await collect(await docker.getContainer(id).getArchive({ path }));
    if (firstEntrySize(tar) !== Number(size)) throw new Error(`entry of ${firstEntrySize(tar)}`);
  },
  async put([id, dir, name, size]) {
    // Building the tar is part of what a dockerode client does to write a file: timed too.
    await docker.getContainer(id).putArchive(tarOf(name, pattern(Number(size))), { path: dir });
  },
  async run([name, image]) {
    const container = await docker.createContainer(sandboxContainer(name, image));
    await container.start();
    const r = await exec(container.id, ['sh', '-c', 'true']);
    if (r.exitCode !== 0) throw new Error(`exit ${r.exitCode}`);
  },
  async rm([name]) {
    try {
      await docker.getContainer(name).remove({ force: true, v: true });
    } catch (e) {
      if (e.statusCode !== 404) throw e;
    }
  },
};

const rl = readline.createInterface({ input: process.stdin });
// One command at a time: the harness waits for each answer before it sends the next line.
(async () => {
  for await (const line of rl) {
    const [cmd, ...args] = line.trim().split(' ');
    if (cmd === 'quit') break;
    const handler = handlers[cmd];
    if (!handler) {
      process.stdout.write(`err unknown command ${cmd}\n`);
      continue;
    }
    const t0 = process.hrtime.bigint();
    try {
      await handler(args);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      process.stdout.write(`ok ${ms.toFixed(3)}\n`);
    } catch (e) {
      process.stdout.write(`err ${String(e && e.message ? e.message : e).replace(/\n/g, ' ')}\n`);
    }
  }
  process.exit(0);
})();
