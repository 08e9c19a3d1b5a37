import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeParameters, describeSize, functionSizes, hasTooManyParameters, isTooLarge, MAX_OWN_LINES, MAX_PARAMETERS, MAX_TOTAL_LINES, type FunctionSize } from '../../scripts/function-sizes.ts';
import { repoRoot } from '../support/process.ts';

describe(`function sizes: no function in server/ has more than ${MAX_OWN_LINES} lines of its own or ${MAX_TOTAL_LINES} in all`, function () {
  // The compiler (tsgo) starts and parses the project once: a few seconds.
  this.timeout(60_000);
  let sizes: FunctionSize[];
  before(() => {
    sizes = functionSizes();
  });

  it('measures every function of server/', () => {
    expect(sizes.length).to.be.greaterThan(500);
    expect(sizes.some((size) => size.file === 'server/app.ts' && size.name === 'createApp')).to.equal(true);
  });

  it('none is too large (file:line and function named)', () => {
    expect(sizes.filter(isTooLarge).map(describeSize)).to.deep.equal([]);
  });

  it(`none takes more than ${MAX_PARAMETERS} positional parameters: more go in an options object`, () => {
    expect(sizes.filter(hasTooManyParameters).map(describeParameters)).to.deep.equal([]);
  });
});

describe(`function sizes: no function of the console's script (console/*.js) has more than ${MAX_OWN_LINES} lines of its own or ${MAX_TOTAL_LINES} in all, or more than ${MAX_PARAMETERS} parameters`, function () {
  this.timeout(60_000);
  let sizes: FunctionSize[];
  before(() => {
    sizes = functionSizes('console/', repoRoot, 'tsconfig.console.json');
  });

  it('measures every module of the console', () => {
    const files = new Set(sizes.map((size) => size.file));
    for (const file of ['console/console.js', 'console/shared.js', 'console/keys.js', 'console/connect.js', 'console/playground.js', 'console/usage.js']) expect([...files]).to.include(file);
    expect(sizes.some((size) => size.file === 'console/playground.js' && size.name === 'send')).to.equal(true);
  });

  it('none is too large (file:line and function named)', () => {
    expect(sizes.filter(isTooLarge).map(describeSize)).to.deep.equal([]);
  });

  it(`none takes more than ${MAX_PARAMETERS} positional parameters: more go in an options object`, () => {
    expect(sizes.filter(hasTooManyParameters).map(describeParameters)).to.deep.equal([]);
  });
});

describe('function sizes: how a function is measured', function () {
  this.timeout(60_000);
  let root: string;
  let sizes: FunctionSize[];
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'freeway-sizes-'));
    mkdirSync(join(root, 'server'));
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ['server'] }));
    writeFileSync(
      join(root, 'server', 'sample.ts'),
      [
        '// A comment before a function is not part of it.',
        'export function outer(list: number[]): number {', // 2
        '  const double = (n: number): number => {', // 3: nested, 3 lines; outer's own lines 3 and 5 as well (`const double =`, `;`)
        '    return n * 2;',
        '  };',
        '',
        '  list.forEach((n) => console.log(n));', // 7: a one-line callback on a line of outer's own
        '  return list.map(double).length;',
        '}', // 9
        'export const box = {',
        '  open() {', // 11
        '    return 1;',
        '  },',
        '};',
        'export class Counter {',
        '  constructor(private count = 0) {}', // 16
        '}',
      ].join('\n'),
    );
    sizes = functionSizes('server/', root);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const find = (name: string): FunctionSize | undefined => sizes.find((size) => size.name === name);

  it('counts a function\'s whole span in all, and for its own the lines not wholly inside a nested function', () => {
    expect(find('outer')).to.deep.equal({ file: 'server/sample.ts', line: 2, name: 'outer', own: 7, total: 8, parameters: 1 });
    expect(find('double')).to.deep.equal({ file: 'server/sample.ts', line: 3, name: 'double', own: 3, total: 3, parameters: 1 });
  });

  it('names arrows by what holds them, and finds methods, constructors and callbacks', () => {
    expect(find('callback of list.forEach')).to.include({ line: 7, own: 1, total: 1 });
    expect(find('open')).to.include({ line: 11, own: 3, total: 3 });
    expect(find('constructor')).to.include({ line: 16, own: 1, total: 1 });
    expect(sizes).to.have.length(5);
  });

  it('counts parameters, an options object and a rest parameter as one each', () => {
    expect(find('constructor')).to.include({ parameters: 1 });
    expect(find('open')).to.include({ parameters: 0 });
    const wide: FunctionSize = { file: 'server/x.ts', line: 3, name: 'call', own: 5, total: 5, parameters: 5 };
    expect(hasTooManyParameters(wide)).to.equal(true);
    expect(hasTooManyParameters({ ...wide, parameters: 4 })).to.equal(false);
    expect(describeParameters(wide)).to.equal('server/x.ts:3 call: 5 positional parameters');
  });

  it('reports file:line, the function and both counts', () => {
    const large: FunctionSize = { file: 'server/x.ts', line: 12, name: 'route', own: 81, total: 90, parameters: 2 };
    expect(isTooLarge(large)).to.equal(true);
    expect(isTooLarge({ ...large, own: 80, total: 150 })).to.equal(false);
    expect(isTooLarge({ ...large, own: 10, total: 151 })).to.equal(true);
    expect(describeSize(large)).to.equal('server/x.ts:12 route: 81 own, 90 in all');
  });
});
