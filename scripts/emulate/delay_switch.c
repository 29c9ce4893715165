/* delay_switch: an Ethernet switch in user space whose ports are TAP devices
 * and which holds every frame for a fixed time before it leaves.
 * scripts/emulate/cluster uses it for links with added latency: this kernel has no
 * netem, and a veth pair or a bridge cannot delay.
 *
 * usage: delay_switch DELAY_US PORT...
 *
 * Creates one TAP device per PORT name in the current network namespace,
 * prints "ready" on stdout once all of them exist (the caller then moves
 * each into a node's namespace; the open file keeps it attached), and
 * forwards frames until SIGTERM or SIGINT.  Run it at real-time priority
 * (chrt): it sleeps until the next frame is due, and only a real-time task
 * wakes from such a sleep within a few microseconds.
 *
 * Contract:
 *   - a frame read at time t is written at t + DELAY_US, never earlier and
 *     later only by the wake-up latency; frames leave in arrival order, so
 *     every link stays FIFO;
 *   - the port of a MAC address is learned from the source addresses of
 *     the frames a port sends; a frame to an unknown, broadcast or multicast
 *     address goes to every other port;
 *   - when the hold queue is full, or a port's TAP queue refuses a frame,
 *     the frame is dropped, as a real switch drops it (TCP resends).
 * Rate limits are not its business: scripts/emulate/cluster shapes each node's link
 * with tc tbf.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

enum {
    MAX_PORTS = 64,
    FRAME_MAX = 9216, /* jumbo frames included */
    QUEUE_SLOTS = 4096,
    READS_PER_WAKE = 64, /* per port, so one busy port cannot starve others */
    SPIN_MARGIN_NS = 2000, /* wake this long before a frame is due, plus
                              the measured oversleep, and spin the rest */
};

typedef struct {
    uint64_t due_ns;
    int in_port;
    int len;
    unsigned char data[FRAME_MAX];
} held_frame;

typedef struct {
    unsigned char mac[6];
    int port;
} mac_entry;

static volatile sig_atomic_t stopping;
static held_frame *queue;
static unsigned q_head, q_count;
static mac_entry macs[4 * MAX_PORTS];
static int nmacs;
static unsigned long long dropped_full, dropped_port, forwarded;

static void on_stop(int sig)
{
    (void)sig;
    stopping = 1;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_tap(const char *name)
{
    struct ifreq ifr;
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        perror("delay_switch: /dev/net/tun");
        return -1;
    }
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    if (strlen(name) >= IFNAMSIZ) {
        fprintf(stderr, "delay_switch: port name '%s' is longer than %d\n",
                name, IFNAMSIZ - 1);
        close(fd);
        return -1;
    }
    strcpy(ifr.ifr_name, name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        fprintf(stderr, "delay_switch: cannot create TAP device %s: %s\n",
                name, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static int port_of_mac(const unsigned char *mac)
{
    for (int i = 0; i < nmacs; i++)
        if (memcmp(macs[i].mac, mac, 6) == 0)
            return macs[i].port;
    return -1;
}

static void learn(const unsigned char *mac, int port)
{
    if (mac[0] & 1) /* a group address is never a source */
        return;
    for (int i = 0; i < nmacs; i++)
        if (memcmp(macs[i].mac, mac, 6) == 0) {
            macs[i].port = port;
            return;
        }
    if (nmacs < (int)(sizeof macs / sizeof macs[0])) {
        memcpy(macs[nmacs].mac, mac, 6);
        macs[nmacs++].port = port;
    }
}

static void put(int fd, const held_frame *f)
{
    if (write(fd, f->data, (size_t)f->len) == f->len)
        forwarded++;
    else
        dropped_port++;
}

static void send_frame(const int *fds, int nports, const held_frame *f)
{
    int out = f->data[0] & 1 ? -1 : port_of_mac(f->data);
    if (out == f->in_port)
        return;
    if (out >= 0) {
        put(fds[out], f);
        return;
    }
    for (int p = 0; p < nports; p++)
        if (p != f->in_port)
            put(fds[p], f);
}

static void receive_from(int fd, int port, uint64_t delay_ns)
{
    for (int i = 0; i < READS_PER_WAKE; i++) {
        held_frame *f = &queue[(q_head + q_count) % QUEUE_SLOTS];
        static held_frame overflow;
        if (q_count == QUEUE_SLOTS)
            f = &overflow;
        ssize_t n = read(fd, f->data, sizeof f->data);
        if (n < 0)
            return; /* EAGAIN: drained */
        if (n < 14)
            continue;
        if (f == &overflow) {
            dropped_full++;
            continue;
        }
        f->len = (int)n;
        f->in_port = port;
        f->due_ns = now_ns() + delay_ns;
        learn(f->data + 6, port);
        q_count++;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: delay_switch DELAY_US PORT...\n");
        return 2;
    }
    char *end;
    long delay_us = strtol(argv[1], &end, 10);
    if (*end || delay_us < 0 || delay_us > 10000000) {
        fprintf(stderr, "delay_switch: DELAY_US '%s' must be 0 to 10000000 "
                "microseconds\n", argv[1]);
        return 2;
    }
    int nports = argc - 2;
    if (nports > MAX_PORTS) {
        fprintf(stderr, "delay_switch: at most %d ports\n", MAX_PORTS);
        return 2;
    }
    queue = calloc(QUEUE_SLOTS, sizeof *queue);
    if (!queue) {
        fprintf(stderr, "delay_switch: out of memory\n");
        return 1;
    }
    int fds[MAX_PORTS];
    struct pollfd pfd[MAX_PORTS];
    for (int p = 0; p < nports; p++) {
        fds[p] = open_tap(argv[p + 2]);
        if (fds[p] < 0)
            return 1;
        pfd[p].fd = fds[p];
        pfd[p].events = POLLIN;
    }

    /* SIGTERM is delivered only inside ppoll, so no wake-up is lost. */
    sigset_t blocked, during_wait;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    sigprocmask(SIG_BLOCK, &blocked, &during_wait);
    sigdelset(&during_wait, SIGTERM);
    sigdelset(&during_wait, SIGINT);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    printf("ready\n");
    fflush(stdout);

    uint64_t delay_ns = (uint64_t)delay_us * 1000u;
    /* How late a timed sleep ends, on average: 14-16 us on the VM this was
     * written on, even at real-time priority.  Sleeps end that much early
     * and the last stretch is spun, so a frame leaves within a few
     * microseconds of its due time while the switch sleeps most of it. */
    uint64_t oversleep_ns = 15000;
    while (!stopping) {
        uint64_t now = now_ns();
        while (q_count && queue[q_head].due_ns <= now) {
            send_frame(fds, nports, &queue[q_head]);
            q_head = (q_head + 1) % QUEUE_SLOTS;
            q_count--;
        }
        struct timespec ts, *timeout = NULL;
        uint64_t wake_at = 0;
        if (q_count) {
            uint64_t left = queue[q_head].due_ns - now;
            uint64_t early = oversleep_ns + SPIN_MARGIN_NS;
            ts.tv_sec = 0;
            ts.tv_nsec = 0;
            if (left > early) {
                uint64_t sleep = left - early;
                ts.tv_sec = (time_t)(sleep / 1000000000u);
                ts.tv_nsec = (long)(sleep % 1000000000u);
                wake_at = now + sleep;
            }
            timeout = &ts;
        }
        int n = ppoll(pfd, (nfds_t)nports, timeout, &during_wait);
        if (n < 0 && errno != EINTR) {
            perror("delay_switch: ppoll");
            return 1;
        }
        if (n == 0 && wake_at) {
            uint64_t late = now_ns() - wake_at;
            if (late < 1000000u) /* a preemption is no measure of the timer */
                oversleep_ns = (7 * oversleep_ns + late) / 8;
        }
        for (int p = 0; n > 0 && p < nports; p++)
            if (pfd[p].revents & POLLIN)
                receive_from(fds[p], p, delay_ns);
    }
    fprintf(stderr, "delay_switch: %llu frames forwarded, %llu dropped (queue "
            "full), %llu dropped (port busy)\n", forwarded, dropped_full,
            dropped_port);
    return 0;
}
