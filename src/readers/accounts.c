#include "accounts.h"

#include <string.h>

#include "parse.h"

/* Field INDEX (from 0) of the ':'-separated line at LINE, within the line. */
static bool field(const char *line, unsigned index, jd_span *out)
{
        const char *eol = jd_line_end(line), *start = line;
        for (unsigned i = 0; i < index; i++) {
                const char *colon = memchr(start, ':', (size_t) (eol - start));
                if (!colon)
                        return false;
                start = colon + 1;
        }
        const char *end = memchr(start, ':', (size_t) (eol - start));
        *out = (jd_span) { start, (size_t) ((end ? end : eol) - start) };
        return true;
}

/* The first entry of PASSWD for UID: its name (not empty) and its primary
 * gid's field. An entry has a field after its uid ("a:x:1000" is none). */
static bool passwd_entry(const char *passwd, uint32_t uid, jd_span *name, jd_span *gid)
{
        JD_FOR_EACH_LINE(l, passwd) {
                jd_span f;
                uint64_t n;
                if (field(l, 2, &f) && jd_span_u64(f, &n) && n == uid && field(l, 3, gid) &&
                    field(l, 0, name) && name->len)
                        return true;
        }
        return false;
}

bool jd_passwd_name(const char *passwd, uint32_t uid, char *out, size_t size)
{
        jd_span name, gid;
        return passwd_entry(passwd, uid, &name, &gid) && jd_span_copy(name, out, size);
}

bool jd_uid_in_group(const char *passwd, const char *group, uint32_t uid, const char *group_name)
{
        jd_span name, primary, gname, gid, members;
        if (!passwd_entry(passwd, uid, &name, &primary))
                return false;
        JD_FOR_EACH_LINE(l, group) {
                if (!field(l, 0, &gname) || !jd_span_eq(gname, group_name) || !field(l, 2, &gid))
                        continue;
                if (gid.len == primary.len && memcmp(gid.p, primary.p, gid.len) == 0)
                        return true;
                if (!field(l, 3, &members))
                        return false;
                /* "a,b,c": NAME as one whole member. */
                for (const char *m = members.p, *end = members.p + members.len; m < end;) {
                        const char *comma = memchr(m, ',', (size_t) (end - m));
                        const char *stop = comma ? comma : end;
                        if ((size_t) (stop - m) == name.len && memcmp(m, name.p, name.len) == 0)
                                return true;
                        m = stop + 1;
                }
                return false;
        }
        return false;
}
