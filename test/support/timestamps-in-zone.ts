import pg from 'pg';
import { BinaryArray } from '../../lib/database/binary-array.js';
import { PG } from './database.js';

/**
 * Run with `TZ` set (`node --import ./register-typescript.mjs timestamps-in-zone.ts <ISO dates>`):
 * reads each date back from PostgreSQL, on a connection whose TimeZone is that zone too, bound in a
 * binary array and bound as node-postgres binds a Date, and sends the parent both, as Unix
 * milliseconds.
 */
const dates = process.argv.slice(2).map((iso) => new Date(iso));
const client = new pg.Client({ ...PG, options: `-c TimeZone=${process.env.TZ}` });
await client.connect();
const read: { binary: number; direct: number }[] = [];
for (const date of dates) {
  const { rows } = await client.query<{ binary: Date; direct: Date }>(
    'SELECT (SELECT unnest($1::timestamptz[])) AS binary, $2::timestamptz AS direct',
    [new BinaryArray('timestamptz', [date]), date],
  );
  read.push({ binary: rows[0].binary.getTime(), direct: rows[0].direct.getTime() });
}
await client.end();
process.send?.(read, () => process.exit(0));
