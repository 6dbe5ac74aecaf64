import fc from 'fast-check';
import { MinHeap } from './min-heap.js';

describe('MinHeap', () => {
  it('pops every item pushed, smallest key first, whatever the order of pushes and pops', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -50, max: 50 }), fc.constant(null))), (steps) => {
        const heap = new MinHeap<number>();
        const model: number[] = [];
        for (const step of steps) {
          if (step === null) {
            model.sort((a, b) => a - b);
            expect(heap.pop()).toBe(model.shift());
          } else {
            heap.push(step, step);
            model.push(step);
          }
          expect(heap.size).toBe(model.length);
        }
      }),
    );
  });
});
