/* mprobe: matched probes on messages Omnibus holds (see mprobe.c). */
#ifndef OMNIBUS_MPROBE_H
#define OMNIBUS_MPROBE_H

void mprobe_init(void);
void mprobe_finalize(void);

#endif
