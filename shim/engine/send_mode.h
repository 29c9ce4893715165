/* send_mode: MPI's four send modes (MPI-4.1 §3.4), which every layer that
 * starts a send passes down: standard, synchronous (complete once
 * matched), ready, and buffered (copied into the attached buffer's
 * account). */
#ifndef OMNIBUS_SEND_MODE_H
#define OMNIBUS_SEND_MODE_H

enum send_mode { SEND_STANDARD, SEND_SYNC, SEND_READY, SEND_BUFFERED };

#endif
