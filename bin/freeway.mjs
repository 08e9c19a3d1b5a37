#!/usr/bin/env node
// The `freeway` command. Plain JavaScript that any Node from 18 on can parse: when the
// running Node is older than Freeway needs, it runs itself again under the Node 24
// that the `node` dependency installs, passing signals through and exiting as it does.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serverNodeFlags } from './node-flags.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const usage = `Usage: freeway [--port <port>] [--host <host>]

Runs Freeway, the OpenAI-compatible proxy over the free tiers of many model
providers, until SIGTERM or SIGINT (which drain in-flight requests first).

Options:
  -p, --port <port>  Port to listen on (the PORT variable; default 3000)
      --host <host>  Address to listen on (the HOST variable; default 0.0.0.0)
  -v, --version      Print the version and the Node.js it runs on
  -h, --help         Print this help

Every other setting is an environment variable, checked before Freeway listens
(docs/configuration.md explains them):
`;

/** Freeway runs from source on Node 22.18 and later (type stripping), and from its build on the same. */
function nodeIsRecentEnough(versionText) {
  const [major, minor] = versionText.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 18);
}

function fail(message) {
  process.stderr.write(`freeway: ${message}\nRun freeway --help for usage.\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const env = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined) fail(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case '-h':
      case '--help':
        return { action: 'help' };
      case '-v':
      case '--version':
        return { action: 'version' };
      case '-p':
      case '--port':
        env.PORT = value();
        break;
      case '--host':
        env.HOST = value();
        break;
      default:
        fail(`unknown option ${arg}`);
    }
  }
  return { action: 'serve', env };
}

/** The Node binary of the `node` package next to Freeway, if it is installed. */
function bundledNode() {
  try {
    const dir = dirname(createRequire(join(root, 'package.json')).resolve('node/package.json'));
    const binary = join(dir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

function reexec(node) {
  const child = spawn(node, [...serverNodeFlags(process.execArgv, process.env), fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // Pass stop requests on; the server drains and exits, and so does this process.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    process.stderr.write(`Freeway cannot start: could not run ${node}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

/**
 * A module of Freeway: a checkout runs its TypeScript sources; an installed package (inside
 * node_modules, where Node does not strip types) runs the JavaScript build that `npm pack` made.
 */
function freewayModule(...path) {
  const source = join(root, ...path);
  const inPackage = root.split(sep).includes('node_modules');
  const entry = !inPackage && existsSync(source) ? source : join(root, 'dist', ...path).replace(/\.ts$/, '.js');
  if (!existsSync(entry)) fail(`${entry} is missing; run npm run build`);
  return pathToFileURL(entry).href;
}

const args = parseArgs(process.argv.slice(2));
const node = nodeIsRecentEnough(process.versions.node) ? undefined : bundledNode();
if (args.action === 'help' && !node) {
  // The settings are listed from their table, in TypeScript: Node 22.18 or later reads it,
  // an older one (without the node package to run it again) points to the docs.
  const { helpText } = nodeIsRecentEnough(process.versions.node) ? await import(freewayModule('server', 'config', 'describe.ts')) : {};
  process.stdout.write(`${usage}\n${helpText ? helpText() : 'See docs/configuration.md.\n'}`);
} else if (!nodeIsRecentEnough(process.versions.node)) {
  if (!node) {
    process.stderr.write(
      `Freeway cannot start: it needs Node.js 22.18 or later and this is ${process.version}; install its dependencies (the node package brings Node 24) or a newer Node.js\n`,
    );
    process.exit(1);
  }
  reexec(node);
} else if (args.action === 'version') {
  process.stdout.write(`freeway ${version} (Node.js ${process.version})\n`);
} else {
  const flags = serverNodeFlags(process.execArgv, process.env);
  if (flags.length > 0 && typeof process.execve === 'function' && process.platform !== 'win32') {
    // V8's heap sizes are fixed when it starts: become this same command again, in this
    // same process (same pid, stdio and signals), with the server's flags. On success
    // execve does not return; where it cannot run, Freeway runs with V8's defaults.
    try {
      process.execve(process.execPath, [process.execPath, ...process.execArgv, ...flags, fileURLToPath(import.meta.url), ...process.argv.slice(2)], process.env);
    } catch {}
  }
  Object.assign(process.env, args.env);
  await import(freewayModule('server', 'main.ts'));
}
