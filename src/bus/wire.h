/* D-Bus messages marshalled by jetsond itself, for the one body that
 * every Sample signal and every GetSnapshot answer of a sample share:
 * sd-bus cannot put an already marshalled body into a new message (its
 * sd_bus_message_copy() re-reads and re-appends every value, slower than
 * building anew), so the body is marshalled once per sample here and
 * each answer is a small header of its own written before it.
 * Native byte order, protocol version 1 (the D-Bus specification,
 * "Message Protocol"). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "values.h"

/* "ta{sv}": TIMESTAMP and every value of LISTS, as jd_append_values()
 * appends them through sd-bus. BODY is emptied first. */
void jd_wire_sample_body(GByteArray *body, uint64_t timestamp_us, const jd_values *const *lists, size_t n_lists);

/* "tuad": TIMESTAMP, GENERATION and VALUES. */
void jd_wire_compact_body(GByteArray *body, uint64_t timestamp_us, uint32_t generation, const double *values,
                          size_t n);

/* The header of a signal (PATH, INTERFACE, MEMBER) or, with REPLY_SERIAL
 * nonzero, of a method return to DESTINATION; SIGNATURE describes a body
 * of BODY_LEN bytes. OUT is emptied first; it ends padded to 8. */
void jd_wire_header(GByteArray *out, uint32_t serial, const char *path, const char *interface, const char *member,
                    uint32_t reply_serial, const char *destination, const char *signature, size_t body_len);

/* A signal's header made by jd_wire_header() for another message of the
 * same member: only its SERIAL and BODY_LEN change. */
void jd_wire_header_renew(GByteArray *header, uint32_t serial, size_t body_len);

/* Writes HEADER and BODY to BUS's socket as one message, when that cannot
 * interleave with what sd-bus writes: nothing is queued in sd-bus, the
 * connection is a Unix stream socket and the message goes in one piece
 * (the kernel takes a message this small whole or not at all). Returns
 * true if it was written; false if the caller must send it through sd-bus
 * instead (also when the socket is full: sd-bus queues it, and always
 * with JETSOND_NO_WIRE=1 in the environment, for benchmarks and tests). */
bool jd_wire_send(sd_bus *bus, const GByteArray *header, const GByteArray *body);
/* Writes that the kernel took in part (expected never; the connection is
 * then ended, not waited on), for the log and tests. */
extern unsigned long jd_wire_partial_writes;

/* A serial for a message written by jd_wire_send(): from the upper half
 * of the range, apart from sd-bus's cookies (only method calls need
 * serials that are unique; these are signals and returns). */
uint32_t jd_wire_next_serial(void);
