/* raw.h5: every sample of a run, rebuilt from its journal (the journal is
 * the durable copy; raw.h5 is built in memory and published through a
 * unique temporary, fsync and rename).
 *
 * Layout gdtune.raw/4 (docs/formats.md; h5dump and h5py read it without gdtune):
 *   /                      attributes: device name, UUID, arch, SM count,
 *                          clocks, driver, CUDA, cuDNN, NVRTC versions,
 *                          gdtune version, source digest, spec source,
 *                          digest and text, candidate table digest
 *   /<family>/cell_<NNN>   attributes: shape, key, reference
 *     plans                one row per plan: name, kind, side, disposition,
 *                          time_us, noise, samples, burst, clocks, ...
 *                          (rawh5_plans.c)
 *     plan_<NNN>           attributes: name, engine_id, tag, backend,
 *                          disposition, error, build_s, time_us, noise
 *       burst_<B>/host_us, device_us, total_us   float64[n], us per call
 *       cold_us                                  float64[n]
 * Private to the harness and reports. */
#ifndef GDT_RAWH5_H
#define GDT_RAWH5_H

#include "gdt_run.h"
#include "gdtune/gdtune.h"

/* Writes <dir>/raw.h5 from the run's journal, as the model read it. */
gdt_status gdt_rawh5_write(const gdt_run *r, const char *dir, gdt_error *e);
/* After a sweep: <dir>/raw.h5 from its journal as the sweep left it read; a
 * failure is said on stderr, not fatal (the journal holds every sample;
 * `gdtune report` retries).  Whether it was written. */
bool gdt_rawh5_after_sweep(const gdt_run *r, const char *dir);

#endif
