import { contextWithState } from './context-with-state.ts';
import type { MigrateStage, PackStage, PlaceStage } from './stages.ts';

/**
 * One placement stage out of place → pack → migrate, so that a wrapper around it (EasyScale's elastic tier) sees the
 * final guaranteed plan and places elastic jobs only on what that plan leaves free. Relabelling permutes GPUs; the
 * migrate stage brings `free` in line with the plan it returns (see `MigrateStage`).
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
      // The migrate stage moves the reservations in `free` to the GPUs it renamed the plan onto.
      return migrate.relabel(ordered, plan, free, ctx);
    },
    ...(stages.some((s) => s.nextState)
      ? {
          nextState: (ordered, plan, ctx) => {
            let state = ctx.state;
            for (const stage of stages)
              if (stage.nextState) state = stage.nextState(ordered, plan, contextWithState(ctx, state));
            return state;
          },
        }
      : {}),
  };
};
