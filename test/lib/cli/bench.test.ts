import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command } from 'commander';
import { BENCH_SUITES } from '../../../bench/suites.ts';
import { registerBenchCommand } from '../../../lib/cli/bench.ts';

test('tessera bench --help names every suite with what it measures, within 80 columns', () => {
  const program = new Command();
  registerBenchCommand(program);
  let help = '';
  const bench = program.commands[0]!.configureOutput({ writeOut: (text) => (help += text) });
  bench.outputHelp();
  const listed = help.slice(help.indexOf('\nSuites:\n'));
  for (const suite of BENCH_SUITES.values()) {
    assert.match(listed, new RegExp(`^  ${suite.name} +\\S`, 'm'), suite.name);
    const words = listed.replace(/\s+/g, ' ');
    assert.ok(words.includes(suite.description.replace(/\s+/g, ' ')), `${suite.name}'s description in full`);
  }
  for (const line of listed.split('\n')) assert.ok(line.length <= 80, line);
});

test('tessera bench flagship --trace without --cluster says they go together (and runs nothing)', async () => {
  const program = new Command().exitOverride();
  registerBenchCommand(program);
  await assert.rejects(
    program.parseAsync(['bench', 'flagship', '--trace', 'some.trace'], { from: 'user' }),
    /--trace and --cluster go together/,
  );
});

test('flagship-only options given to another suite are an error naming them (and run nothing)', async () => {
  const cases: [string[], RegExp][] = [
    [
      ['bench', 'round', '--quick', '--held-out'],
      /: --held-out: only bench flagship takes this; bench round would ignore it$/,
    ],
    [
      ['bench', 'assign', '--quick', '--trace', 'my.trace', '--cluster', 'tesserae-32'],
      /: --trace, --cluster: only bench flagship takes these; bench assign would ignore them$/,
    ],
    [
      ['bench', 'sim', '--quick', '--length-noise', '--setup', 'x'],
      /: --length-noise, --setup: only bench flagship/,
    ],
  ];
  for (const [argv, message] of cases) {
    const program = new Command().exitOverride();
    registerBenchCommand(program);
    await assert.rejects(program.parseAsync(argv, { from: 'user' }), message, argv.join(' '));
  }
});
