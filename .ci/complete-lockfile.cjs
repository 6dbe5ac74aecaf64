// The registry this project installs from lacks some other-platform builds of optional native
// packages (e.g. darwin/win32 bindings). `npm install` then leaves them out of package-lock.json
// and `npm ci` refuses the lockfile as out of sync. This adds the missing optional entries, marked
// with their os/cpu so that npm skips them on every other platform, as a complete lockfile would.
const fs = require('node:fs');

const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const OS = [
  'darwin',
  'linux',
  'win32',
  'freebsd',
  'android',
  'openbsd',
  'sunos',
  'aix',
  'netbsd',
  'openharmony',
  'wasm32',
];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'wasm32'];
let added = 0;

for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${name}`]) continue;
    const parts = name.split(/[-/]/);
    const os = OS.filter((o) => parts.includes(o));
    const cpu = CPU.filter((c) => parts.includes(c));
    lock.packages[`node_modules/${name}`] = {
      version: version.replace(/^[\^~=]/, ''),
      ...(cpu.length ? { cpu } : {}),
      optional: true,
      ...(os.length ? { os } : {}),
    };
    added++;
  }
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);
