import { GCProfiler, getHeapStatistics } from "node:v8";

/**
 * Bytes this process allocates on the V8 heap between start and stop: the growth of the used heap plus
 * what every garbage collection in between freed (V8's GCProfiler reports each collection's used heap
 * before and after). Buffers' backing stores live outside the heap and are not counted.
 */
export function startAllocationCounter(): { stop(): number } {
  const profiler = new GCProfiler();
  profiler.start();
  const usedAtStart = getHeapStatistics().used_heap_size;
  return {
    stop() {
      const usedAtStop = getHeapStatistics().used_heap_size;
      const { statistics } = profiler.stop();
      let freed = 0;
      for (const collection of statistics) {
        freed +=
          collection.beforeGC.heapStatistics.usedHeapSize - collection.afterGC.heapStatistics.usedHeapSize;
      }
      return usedAtStop - usedAtStart + freed;
    },
  };
}
