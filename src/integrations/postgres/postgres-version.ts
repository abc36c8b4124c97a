/**
 * The version of the PostgreSQL state tables, in a module of its own so nodestep/postgres's
 * declarations need no pg types.
 *
 * @module
 */

/** Version of the tables this code reads and writes; kept in the schema's `meta` table. */
export const POSTGRES_SCHEMA_VERSION = 1;
