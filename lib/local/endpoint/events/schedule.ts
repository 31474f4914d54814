/**
 * EventBridge schedule expressions: `rate(N unit)` and `cron(min hour day-of-month month
 * day-of-week year)`, parsed with AWS's rules, and the next fire time after a given instant
 * (UTC), so whoever drives schedules locally (the Lambda runner) fires them as AWS would.
 */
export class ScheduleExpressionError extends Error {
  override readonly name = 'ScheduleExpressionError';
}

export type Schedule =
  | { kind: 'rate'; expression: string; periodMs: number }
  | { kind: 'cron'; expression: string; fields: CronFields };

interface CronFields {
  minutes: Set<number>;
  hours: Set<number>;
  /** undefined = `?` (no constraint from this field). */
  daysOfMonth: Set<number> | undefined;
  months: Set<number>;
  /** 1 = Sunday … 7 = Saturday, as in EventBridge; undefined = `?`. */
  daysOfWeek: Set<number> | undefined;
  years: Set<number> | undefined;
}

const UNIT_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

function invalid(expression: string, why: string): never {
  throw new ScheduleExpressionError(`Schedule expression '${expression}' is not valid: ${why}`);
}

export function parseScheduleExpression(expression: string): Schedule {
  const rate = /^rate\((.*)\)$/.exec(expression);
  if (rate) return parseRate(expression, rate[1]!.trim());
  const cron = /^cron\((.*)\)$/.exec(expression);
  if (cron) return { kind: 'cron', expression, fields: parseCron(expression, cron[1]!.trim()) };
  return invalid(expression, 'expected rate(value unit) or cron(fields)');
}

function parseRate(expression: string, body: string): Schedule {
  const match = /^(\d+)\s+(minute|minutes|hour|hours|day|days)$/.exec(body);
  if (!match) return invalid(expression, 'expected rate(<positive integer> minute(s)|hour(s)|day(s))');
  const value = Number(match[1]);
  const unit = match[2]!;
  if (value < 1) invalid(expression, 'the rate value must be positive');
  // AWS insists on the singular for 1 and the plural otherwise.
  if ((value === 1) !== !unit.endsWith('s')) {
    invalid(
      expression,
      value === 1
        ? `use the singular unit for 1 (${unit.replace(/s$/, '')})`
        : `use the plural unit (${unit}s)`,
    );
  }
  return { kind: 'rate', expression, periodMs: value * UNIT_MS[unit.replace(/s$/, '')]! };
}

function parseCron(expression: string, body: string): CronFields {
  const parts = body.split(/\s+/);
  if (parts.length !== 6)
    invalid(
      expression,
      `cron needs 6 fields (minutes hours day-of-month month day-of-week year), got ${parts.length}`,
    );
  const [min, hour, dom, month, dow, year] = parts as [string, string, string, string, string, string];
  if ((dom === '?') === (dow === '?')) {
    invalid(expression, 'exactly one of day-of-month and day-of-week must be ?');
  }
  return {
    minutes: parseField(expression, 'minutes', min, 0, 59),
    hours: parseField(expression, 'hours', hour, 0, 23),
    daysOfMonth: dom === '?' ? undefined : parseField(expression, 'day-of-month', dom, 1, 31),
    months: parseField(expression, 'month', month, 1, 12, MONTHS),
    daysOfWeek: dow === '?' ? undefined : parseField(expression, 'day-of-week', dow, 1, 7, DAYS),
    years: year === '*' ? undefined : parseField(expression, 'year', year, 1970, 2199),
  };
}

function parseField(
  expression: string,
  name: string,
  text: string,
  min: number,
  max: number,
  names?: readonly string[],
): Set<number> {
  const values = new Set<number>();
  const toNumber = (token: string): number => {
    const upper = token.toUpperCase();
    const named = names?.indexOf(upper) ?? -1;
    if (named >= 0) return named + 1;
    if (!/^\d+$/.test(token)) {
      if (/[LW#]/.test(token))
        invalid(expression, `${name}: L, W and # are not supported by the local scheduler`);
      invalid(expression, `${name}: '${token}' is not a number`);
    }
    const n = Number(token);
    if (n < min || n > max) invalid(expression, `${name}: ${n} is outside ${min}-${max}`);
    return n;
  };
  for (const item of text.split(',')) {
    const [rangeText, stepText] = item.split('/') as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1)
      invalid(expression, `${name}: step '${stepText}' must be a positive integer`);
    let start: number;
    let end: number;
    if (rangeText === '*') {
      start = min;
      end = max;
    } else if (rangeText.includes('-')) {
      const [a, b] = rangeText.split('-') as [string, string];
      start = toNumber(a);
      end = toNumber(b);
      if (end < start) invalid(expression, `${name}: range ${rangeText} runs backwards`);
    } else {
      start = toNumber(rangeText);
      end = stepText === undefined ? start : max;
    }
    for (let v = start; v <= end; v += step) values.add(v);
  }
  return values;
}

/**
 * The first fire time strictly after `after` (epoch ms). Rate schedules count whole periods
 * from `anchor` (the rule's creation time); cron schedules fire at whole minutes, UTC.
 * Returns undefined if a cron schedule never fires again (e.g. a past year).
 */
export function nextFireTime(schedule: Schedule, after: number, anchor = 0): number | undefined {
  if (schedule.kind === 'rate') {
    const periods = Math.floor((after - anchor) / schedule.periodMs) + 1;
    return anchor + Math.max(1, periods) * schedule.periodMs;
  }
  const f = schedule.fields;
  const t = new Date(Math.floor(after / 60_000) * 60_000 + 60_000);
  const lastYear = f.years ? Math.max(...f.years) : t.getUTCFullYear() + 10;
  while (t.getUTCFullYear() <= lastYear) {
    if (f.years && !f.years.has(t.getUTCFullYear())) {
      t.setUTCFullYear(t.getUTCFullYear() + 1, 0, 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!f.months.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    const dayOk = f.daysOfMonth ? f.daysOfMonth.has(t.getUTCDate()) : f.daysOfWeek!.has(t.getUTCDay() + 1);
    if (!dayOk) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!f.hours.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!f.minutes.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    return t.getTime();
  }
  return undefined;
}
