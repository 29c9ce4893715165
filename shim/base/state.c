#include "shim/base/state.h"
#include "router/flow.h"
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

omni_state omni;

uint64_t omni_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t omni_stolen_ns(void)
{
    /* The "cpu" line comes first; the per-core lines after it are not read. */
    char text[1024];
    int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    long hz = sysconf(_SC_CLK_TCK);
    if (n <= 0 || hz <= 0)
        return 0;
    text[n] = '\0';
    return fl_steal_ticks(text) * (1000000000u / (uint64_t)hz);
}
