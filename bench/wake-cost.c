/* jetsond-wake-cost: what a tick costs this machine before jetsond does
 * any work, and what one message a tick adds.
 *
 * A stream at 10 ms wakes jetsond's threads every tick and sends one
 * message to dbus-daemon, which is asleep until it comes. Both costs are
 * the machine's (a VM may take each wake-up through its hypervisor, a
 * board does not have one), not jetsond's. The engine floor
 * (jetsond-engine-floor) pays the wake-ups but sends nothing, so this
 * says how much of jetsond's ratio to the floor a machine puts there by
 * itself. One thread sleeps to an absolute CLOCK_MONOTONIC deadline each
 * PERIOD_US and then, by mode:
 *   wake        does nothing;
 *   to asleep   writes SIZE bytes to a unix stream socket (as sd-bus
 *               writes to dbus-daemon) whose reader, another process,
 *               blocks in read(2): each write wakes it;
 *   to running  writes the same to a reader that polls without blocking,
 *               so the write wakes nobody (that reader keeps a CPU busy).
 * Its thread CPU time per tick is the figure; the modes alternate in
 * blocks of TICKS, and each mode's median block is reported. The writer
 * runs on CPU 0 and the reader on CPU 1, as on a board with idle cores
 * the scheduler wakes dbus-daemon on another core than jetsond's. Left to
 * the scheduler on a 2-CPU machine, the reader often wakes on the
 * writer's CPU and the polling reader competes with the writer: no figure
 * to compare.
 *
 * Usage: jetsond-wake-cost [PERIOD_US [TICKS [SIZE]]]
 * Not a timed test: the figures are the machine's. */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

enum { BLOCKS = 5, MODES = 3 };
static const char *const mode_names[MODES] = { "wake", "wake + send to a reader asleep",
                                               "wake + send to a reader running" };

static void pin(int cpu)
{
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set) < 0)
                perror("sched_setaffinity");
}

/* The reader: reads until the writer closes; with SPIN, never sleeps. */
static void reader(int fd, bool spin)
{
        static char buf[65536];
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), spin ? MSG_DONTWAIT : 0);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                        _exit(0);
        }
}

/* One block of MODE: TICKS ticks, the writer's CPU µs a tick. */
static double block(int mode, long period_us, int ticks, size_t size)
{
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
                perror("socketpair");
                exit(1);
        }
        pid_t child = mode > 0 ? fork() : -1;
        if (mode > 0 && child < 0) {
                perror("fork");
                exit(1);
        }
        if (child == 0) {
                pin(1);
                close(sv[0]);
                reader(sv[1], mode == 2);
        }
        close(sv[1]);
        static char payload[1 << 20];
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        double start = (double) clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1e3;
        for (int i = 0; i < ticks; i++) {
                next.tv_nsec += period_us * 1000;
                next.tv_sec += next.tv_nsec / 1000000000;
                next.tv_nsec %= 1000000000;
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
                        ;
                if (mode > 0 && write(sv[0], payload, size) < 0)
                        perror("write");
        }
        double us = ((double) clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1e3 - start) / ticks;
        close(sv[0]);
        if (child > 0)
                waitpid(child, NULL, 0);
        return us;
}

int main(int argc, char **argv)
{
        long period_us = argc > 1 ? atol(argv[1]) : 10000;
        int ticks = argc > 2 ? atoi(argv[2]) : 100;
        long size = argc > 3 ? atol(argv[3]) : 8192;
        if (period_us <= 0 || period_us > 10000000 || ticks <= 0 || size <= 0 || size > (1 << 20)) {
                fprintf(stderr, "usage: jetsond-wake-cost [PERIOD_US (at most 10 s) [TICKS [SIZE (at most 1 MiB)]]]\n");
                return 2;
        }
        if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
                fprintf(stderr, "jetsond-wake-cost: needs two CPUs\n");
                return 2;
        }
        pin(0);
        double us[MODES][BLOCKS];
        for (int b = 0; b < BLOCKS; b++)
                for (int m = 0; m < MODES; m++)
                        us[m][b] = block(m, period_us, ticks, (size_t) size);
        for (int m = 0; m < MODES; m++)
                qsort(us[m], BLOCKS, sizeof(double), compare_double);
        printf("a tick every %ld us, %ld bytes a send, writer on CPU 0, reader on CPU 1: "
               "writer's CPU a tick, median (least-most) of %d blocks of %d\n",
               period_us, size, BLOCKS, ticks);
        for (int m = 0; m < MODES; m++)
                printf("  %-32s %6.1f us (%.1f-%.1f)\n", mode_names[m], us[m][BLOCKS / 2], us[m][0],
                       us[m][BLOCKS - 1]);
        printf("figure: one message a tick to a sleeping reader adds %+.1f us a tick (%+.1f of it the wake-up)\n",
               us[1][BLOCKS / 2] - us[0][BLOCKS / 2], us[1][BLOCKS / 2] - us[2][BLOCKS / 2]);
        return 0;
}
