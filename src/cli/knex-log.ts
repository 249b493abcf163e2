/** knex logs connection errors with stack traces; the CLI reports each error once, by name, instead. */
export const quietKnexLog = { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined };
