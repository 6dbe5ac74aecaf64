import { deliveryRun, type Topology } from './delivery-bench.js';

/**
 * Runs (a), (b) or (d) once in this fresh process and reports the result to the parent: a publishing
 * host that has already sent deliveries in earlier runs would be compared, warm, with a raw loop
 * that always starts cold.
 */
const [url, receiverPid, events, endpoints, publishers, topology, silent] = process.argv.slice(2);
const result = await deliveryRun(
  url,
  Number(receiverPid),
  Number(events),
  Number(endpoints),
  Number(publishers),
  topology as Topology,
  silent === 'silent',
);
process.send?.({ result }, () => process.exit(0));
