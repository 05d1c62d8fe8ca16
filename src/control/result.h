/* The outcome of a change to the board, independent of D-Bus: the bus
 * layer maps each kind to an error name (introspection/errors.md). */
#pragma once

typedef enum {
        JD_OK,
        JD_FAILED,            /* a tool or the kernel said no */
        JD_TIMEOUT,           /* a tool or unit did not finish in time */
        JD_REBOOT_REQUIRED,   /* nvpmodel would need a reboot; nothing changed */
        JD_NOT_SUPPORTED,     /* the board lacks what the change needs */
        JD_BUSY,              /* the target already exists */
        JD_NOT_FOUND,         /* nothing to remove */
} jd_outcome;

typedef struct {
        jd_outcome outcome;
        char message[512];    /* for people; quotes the tool's own message */
} jd_result;

typedef void (*jd_result_fn)(const jd_result *result, void *userdata);

#define jd_result_set(r, o, ...)                                                   \
        do {                                                                       \
                (r)->outcome = (o);                                                \
                g_snprintf((r)->message, sizeof((r)->message), __VA_ARGS__);       \
        } while (0)
