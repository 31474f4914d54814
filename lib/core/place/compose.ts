import type { Allocation } from '../model/plan.ts';
import type { MigrateStage, PackStage, PlaceStage } from '../stages.ts';

/**
 * One placement stage out of place → pack → migrate, so that a wrapper around it (EasyScale's elastic tier) sees the
 * final guaranteed plan and places elastic jobs only on what that plan leaves free. Relabelling permutes GPUs, so
 * `free` is brought in line with the relabelled plan before returning (unless the migrate stage gave the plan back).
 */
export const placeThenPackAndMigrate = (
  place: PlaceStage,
  pack?: PackStage,
  migrate?: MigrateStage,
): PlaceStage => {
  const stages = [place, pack, migrate].filter((s) => s !== undefined);
  return {
    name: stages.map((s) => s.name).join('+'),
    place: (ordered, demands, free, ctx) => {
      let plan = place.place(ordered, demands, free, ctx);
      if (pack) plan = pack.pack(ordered, plan, free, ctx);
      if (!migrate) return plan;
      const before: Allocation[] = [...plan.values()];
      const after = migrate.relabel(ordered, plan, free, ctx);
      // The very plan back: nothing was renamed, and `free` already holds exactly its GPUs.
      if (after === plan) return plan;
      for (const allocation of before) free.release(allocation);
      // Packed partners share GPUs: the second of a pair finds them taken already, which is right.
      for (const allocation of after.values()) if (free.canReserve(allocation)) free.reserve(allocation);
      return after;
    },
    ...(stages.some((s) => s.nextState)
      ? {
          nextState: (ordered, plan, ctx) => {
            let state = ctx.state;
            for (const stage of stages)
              if (stage.nextState) state = stage.nextState(ordered, plan, { ...ctx, state });
            return state;
          },
        }
      : {}),
  };
};
