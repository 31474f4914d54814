import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Command } from 'commander';
import { registerApiCommands } from '../../../lib/cli/api-commands.ts';
import { API_COMMANDS, commandGroup, unknownCommandHint } from '../../../lib/cli/command-groups.ts';

describe('commandGroup', () => {
  test('every job command api-commands registers is in the api group (none loads the whole CLI)', () => {
    const program = new Command();
    registerApiCommands(program);
    const registered = program.commands.map((command) => command.name()).sort();
    assert.deepEqual(registered, [...API_COMMANDS].sort());
    for (const name of registered) assert.equal(commandGroup(name), 'api', name);
  });

  test('other commands are their own group', () => {
    assert.equal(commandGroup('sim'), 'sim');
    assert.equal(commandGroup('local'), 'local');
    assert.equal(commandGroup(''), '');
  });

  test('names a new user tries point at the command that does it; real command names get no hint', () => {
    assert.match(
      unknownCommandHint('queue')!,
      /^no command 'queue': `tessera jobs` lists your jobs with their queue position/,
    );
    assert.match(unknownCommandHint('why')!, /`tessera job <id>` says why a job waits/);
    for (const name of [...API_COMMANDS, 'sim', 'bench', 'local', 'dashboard', 'toString', '']) {
      assert.equal(unknownCommandHint(name), undefined, name);
    }
  });
});
