import type { z } from 'zod';
import { formatZodIssues } from '../../protocol/format.ts';
import { CorruptItemError } from './errors.ts';

/** Validates an item read from DynamoDB against its schema; throws a CorruptItemError naming table and key. */
export const parseItem = <S extends z.ZodType>(schema: S, raw: unknown, where: string): z.infer<S> => {
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new CorruptItemError(`${where}: malformed item\n${formatZodIssues(parsed.error.issues)}`);
  return parsed.data;
};

/** Like parseItem for many items: the good ones, and one error per bad one. */
export const parseItems = <S extends z.ZodType>(
  schema: S,
  raws: readonly Record<string, unknown>[],
  where: (raw: Record<string, unknown>) => string,
): { items: z.infer<S>[]; corrupt: CorruptItemError[] } => {
  const items: z.infer<S>[] = [];
  const corrupt: CorruptItemError[] = [];
  for (const raw of raws) {
    try {
      items.push(parseItem(schema, raw, where(raw)));
    } catch (error) {
      corrupt.push(error as CorruptItemError);
    }
  }
  return { items, corrupt };
};
