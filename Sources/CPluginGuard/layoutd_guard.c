/* layoutd_guard.c — guarded plugin calls: see include/layoutd_guard.h. */
#define _GNU_SOURCE
#include "layoutd_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define FAULT_COUNT (sizeof fault_signals / sizeof fault_signals[0])
static struct sigaction previous[FAULT_COUNT];
static int timeout_signal;

/* Per thread: where to jump back to while a guarded call runs (NULL otherwise), the
 * alternate stack faults are handled on (so a stack overflow in a plugin is caught too) and
 * the timer that ends a hung call. */
static __thread sigjmp_buf *active_jump;
static __thread int thread_ready;
static __thread timer_t thread_timer;

/* While a plugin has called back into the host (a sink), the host's own code runs: jumping
 * out of it would skip its releases and could leave the allocator's locks held. A time limit
 * reached then is kept pending and taken when the sink returns to the plugin; a fault there
 * is the host's own and goes to the handlers before ours. */
static __thread int in_host;
static __thread int timeout_pending;

static void on_signal(int signal, siginfo_t *info, void *ucontext) {
    sigjmp_buf *jump = active_jump;
    if (jump && in_host > 0 && signal == timeout_signal) {
        timeout_pending = 1;
        return;
    }
    if (jump && in_host == 0) {
        active_jump = NULL;
        siglongjmp(*jump, signal);
    }
    if (signal == timeout_signal) return; /* a timer that fired just after its call ended */
    /* Not in a plugin: hand the fault to whoever handled it before (or the default). */
    for (size_t i = 0; i < FAULT_COUNT; i++) {
        if (fault_signals[i] != signal) continue;
        struct sigaction *old = &previous[i];
        if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
            old->sa_sigaction(signal, info, ucontext);
            return;
        }
        if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_IGN && old->sa_handler != SIG_DFL && old->sa_handler) {
            old->sa_handler(signal);
            return;
        }
        /* The default action: die of this signal (a core dump where enabled). */
        struct sigaction fallback;
        memset(&fallback, 0, sizeof fallback);
        fallback.sa_handler = SIG_DFL;
        sigaction(signal, &fallback, NULL);
        raise(signal);
        return;
    }
}

static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int install_status = -1;

static void install(void) {
    timeout_signal = SIGRTMIN + 3;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < FAULT_COUNT; i++) {
        if (sigaction(fault_signals[i], &action, &previous[i]) != 0) return;
    }
    if (sigaction(timeout_signal, &action, NULL) != 0) return;
    install_status = 0;
}

int layoutd_guard_install(void) {
    pthread_once(&install_once, install);
    return install_status;
}

int layoutd_guard_timeout_signal(void) { return SIGRTMIN + 3; }

/* The calling thread's alternate stack and timer, made on its first guarded call. */
static int prepare_thread(void) {
    if (thread_ready) return 0;
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_size = 64 * 1024;
    stack.ss_sp = malloc(stack.ss_size); /* kept for the thread's life: workers are pooled */
    if (!stack.ss_sp || sigaltstack(&stack, NULL) != 0) return -1;
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = timeout_signal;
    event._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &event, &thread_timer) != 0) return -1;
    thread_ready = 1;
    return 0;
}

static void arm(double seconds) {
    struct itimerspec when;
    memset(&when, 0, sizeof when);
    if (seconds > 0) {
        when.it_value.tv_sec = (time_t)seconds;
        when.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
        if (when.it_value.tv_sec == 0 && when.it_value.tv_nsec == 0) when.it_value.tv_nsec = 1;
    }
    timer_settime(thread_timer, 0, &when, NULL);
}

/* Back in the plugin from a sink: a time limit reached meanwhile stops the call now, from
 * this C frame (only the plugin's frames lie between it and the guard). */
static void leave_host(void) {
    in_host--;
    if (in_host == 0 && timeout_pending && active_jump) {
        sigjmp_buf *jump = active_jump;
        active_jump = NULL;
        timeout_pending = 0;
        siglongjmp(*jump, timeout_signal);
    }
}

/* The sinks plugins are given: each calls the host's own (kept per thread for the call). */
static __thread layoutd_link_sink host_link_sink;
static __thread layoutd_attachment_sink host_attachment_sink;
static __thread layoutd_decoration_sink host_decoration_sink;

static void guarded_link_sink(void *context, const layoutd_link *link) {
    in_host++;
    host_link_sink(context, link);
    leave_host();
}

static void guarded_attachment_sink(void *context, const layoutd_attachment *attachment) {
    in_host++;
    host_attachment_sink(context, attachment);
    leave_host();
}

static void guarded_decoration_sink(void *context, const layoutd_decoration *decoration) {
    in_host++;
    host_decoration_sink(context, decoration);
    leave_host();
}

/* Runs BODY guarded; evaluates to its int result or LAYOUTD_GUARD_ABORTED. */
#define GUARDED(BODY)                                                                         \
    do {                                                                                      \
        *signal_out = 0;                                                                      \
        if (layoutd_guard_install() != 0 || prepare_thread() != 0) return (BODY);            \
        sigset_t unblock, saved;                                                              \
        sigemptyset(&unblock);                                                                \
        for (size_t i = 0; i < FAULT_COUNT; i++) sigaddset(&unblock, fault_signals[i]);       \
        sigaddset(&unblock, timeout_signal);                                                  \
        pthread_sigmask(SIG_UNBLOCK, &unblock, &saved);                                       \
        sigjmp_buf jump;                                                                      \
        int caught = sigsetjmp(jump, 1);                                                      \
        if (caught != 0) {                                                                    \
            arm(0);                                                                           \
            in_host = 0;                                                                      \
            timeout_pending = 0;                                                              \
            pthread_sigmask(SIG_SETMASK, &saved, NULL);                                       \
            *signal_out = caught;                                                             \
            return LAYOUTD_GUARD_ABORTED;                                                     \
        }                                                                                     \
        active_jump = &jump;                                                                  \
        arm(seconds);                                                                         \
        int result = (BODY);                                                                  \
        active_jump = NULL;                                                                   \
        arm(0);                                                                               \
        timeout_pending = 0;                                                                  \
        pthread_sigmask(SIG_SETMASK, &saved, NULL);                                           \
        return result;                                                                        \
    } while (0)

int layoutd_guard_detect(const layoutd_plugin *plugin, void *state, const layoutd_detect_request *request,
                         layoutd_link_sink emit, void *context, char *error, size_t error_size,
                         double seconds, int *signal_out) {
    host_link_sink = emit;
    GUARDED(plugin->detect(state, request, emit ? guarded_link_sink : NULL, context, error, error_size));
}

int layoutd_guard_attachments(const layoutd_plugin *plugin, void *state, const layoutd_attachment_request *request,
                              layoutd_attachment_sink emit, void *context, char *error, size_t error_size,
                              double seconds, int *signal_out) {
    host_attachment_sink = emit;
    GUARDED(plugin->attachments(state, request, emit ? guarded_attachment_sink : NULL, context, error, error_size));
}

int layoutd_guard_decorate(const layoutd_plugin *plugin, void *state, const layoutd_line *line,
                           layoutd_decoration_sink emit, void *context, char *error, size_t error_size,
                           double seconds, int *signal_out) {
    host_decoration_sink = emit;
    GUARDED(plugin->decorate(state, line, emit ? guarded_decoration_sink : NULL, context, error, error_size));
}

int layoutd_guard_draw(const layoutd_plugin *plugin, void *state, const layoutd_line *line,
                       const layoutd_canvas *canvas, char *error, size_t error_size,
                       double seconds, int *signal_out) {
    GUARDED(plugin->draw(state, line, canvas, error, error_size));
}
