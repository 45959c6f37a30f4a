/* nmprobe.h -- the public API of the nmws native probe engine, one header per
 * module, all included here. The wire protocol spoken with nmprobe-responder
 * is private to the engine (src/c/nmp_wire.h); kinds of tests, their specs
 * and packed results are in nmp_kind.h and nmp_pack.h.
 *
 * Conventions used by every call:
 *  - return 0 on success or a negative errno value on failure;
 *  - calls that can fail take a caller-supplied buffer (err, errlen) that
 *    receives "call: reason" text on failure (never NULL-terminated beyond
 *    errlen; errlen may be 0 to ignore the text);
 *  - state lives in handles and structs the caller passes in, never in
 *    globals; the library never calls exit() or abort();
 *  - round-trip times come from the monotonic clock only (nmp_monotime_ns);
 *  - wall-clock stamps (nmp_walltime_ns) are CLOCK_REALTIME nanoseconds
 *    since the Unix epoch and are used only for reporting and for one-way
 *    delay between hosts. */
#ifndef NMPROBE_H
#define NMPROBE_H

#include "nmp_base.h"
#include "nmp_clock.h"
#include "nmp_stats.h"
#include "nmp_host.h"
#include "nmp_responder.h"
#include "nmp_rr.h"
#include "nmp_stream.h"
#include "nmp_scan.h"
#include "nmp_capacity.h"
#include "nmp_avail.h"
#include "nmp_tcp.h"
#include "nmp_hops.h"
#include "nmp_hopcap.h"              /* per-hop capacity (Trace-Rate style) */

#endif /* NMPROBE_H */
