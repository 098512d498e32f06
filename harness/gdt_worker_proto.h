/* The parent side of worker isolation (worker_proto.c): spawn, pipes,
 * deadlines, respawn, and the plan identity both sides put on the wire.
 * The protocol itself and the worker are gdt_worker.h's.  Private to the
 * harness. */
#ifndef GDT_WORKER_PROTO_H
#define GDT_WORKER_PROTO_H

#include <stdbool.h>

#include "gdtune/gdtune.h"

typedef struct gdt_worker gdt_worker;

/* Spawns `exe worker` (exe: NULL for /proc/self/exe). */
gdt_status gdt_worker_spawn(const char *exe, gdt_worker **out, gdt_error *e);
/* The same for the gpu-th visible device (counted within the sweep's own
 * CUDA_VISIBLE_DEVICES when set): the worker sees that one device only.
 * gpu < 0 is gdt_worker_spawn.  Safe to call from several threads. */
gdt_status gdt_worker_spawn_gpu(const char *exe, int gpu, gdt_worker **out, gdt_error *e);

/* Sends one request line and waits at most deadline_s seconds for one reply
 * line (*reply malloc'd).  When the worker dies first: FAULT, naming the
 * signal or exit status; past the deadline it is killed: TIMEOUT, "deadline
 * exceeded after N s".  After either the worker is gone (gdt_worker_alive is
 * false) and gdt_worker_respawn brings a fresh one. */
gdt_status gdt_worker_call(gdt_worker *w, const char *request, double deadline_s, char **reply,
                           gdt_error *e);
bool gdt_worker_alive(const gdt_worker *w);
/* Reaps whatever is left of the worker (killing it when needed) and starts a
 * new one.  *count of spawns so far via gdt_worker_spawn_count. */
gdt_status gdt_worker_respawn(gdt_worker *w, gdt_error *e);
int gdt_worker_spawn_count(const gdt_worker *w);
/* Asks the worker to quit, kills it after a short grace period. */
void gdt_worker_destroy(gdt_worker *w);

#endif
