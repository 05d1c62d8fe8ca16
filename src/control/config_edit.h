/* Text edits of the configuration files jetsond rewrites (nvpmodel.conf,
 * nvfancontrol.conf, fstab).
 *
 * Each function takes the whole current text and returns a new text
 * (free with g_free), or NULL with *error set to a static message when the
 * edit cannot be made unambiguously. Only the edited token or line
 * changes: comments, blanks, tabs, CRLF line ends and a missing final
 * newline are kept byte for byte, because these files are also edited by
 * hand and by NVIDIA's own tools. */
#pragma once

/* Sets n in the one uncommented "< PM_CONFIG DEFAULT=n >" header. */
char *jd_edit_nvpmodel_default(const char *conf, unsigned id, const char **error);

/* Sets the value of the one uncommented "FAN_DEFAULT_PROFILE <name>" line.
 * PROFILE must be a plain token: [A-Za-z0-9_-]+, at most 31 characters. */
char *jd_edit_nvfancontrol_profile(const char *conf, const char *profile, const char **error);

/* Appends "PATH none swap sw 0 0\n" (after a newline if the text lacks a
 * final one). Refused if PATH already has an active swap entry, or if PATH
 * is not absolute, is 255 bytes or longer, or has blanks, control
 * characters or backslashes (anything fstab would need escaped). Both
 * editors refuse, with the reason, an fstab the reader does not use
 * (larger than JD_FSTAB_MAX): an edit it would not see is no edit. */
char *jd_fstab_add_swap(const char *fstab, const char *path, const char **error);

/* Removes every active swap entry for PATH, whatever its separators and
 * options; commented lines stay. Refused if there is none. */
char *jd_fstab_remove_swap(const char *fstab, const char *path, const char **error);

/* Why an fstab read with jd_read_text cannot be edited, for its -errno R
 * (the reader refuses the same files), or NULL for another error. */
const char *jd_fstab_unreadable_reason(int r);
