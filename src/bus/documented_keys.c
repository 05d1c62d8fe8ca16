#include "documented_keys.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "metrics_keys.h"

/* Does the template part T[0..tn) match the key part K[0..kn)? An
 * upper-case run in T is a placeholder: N and PID take one or more
 * digits, any other (RAIL, ZONE, NAME, TYPE) the rest of the part, not empty. */
static bool part_matches(const char *t, size_t tn, const char *k, size_t kn)
{
        size_t i = 0, j = 0;
        while (i < tn) {
                if (!isupper((unsigned char) t[i])) {
                        if (j >= kn || t[i] != k[j])
                                return false;
                        i++, j++;
                        continue;
                }
                size_t end = i;
                while (end < tn && isupper((unsigned char) t[end]))
                        end++;
                bool number = (end - i == 1 && t[i] == 'N') || (end - i == 3 && strncmp(t + i, "PID", 3) == 0);
                if (!number)
                        return end == tn && j < kn;
                size_t digits = j;
                while (digits < kn && isdigit((unsigned char) k[digits]))
                        digits++;
                if (digits == j)
                        return false;
                i = end, j = digits;
        }
        return j == kn;
}

static bool template_matches(const char *t, const char *k)
{
        for (;;) {
                const char *td = strchr(t, '.'), *kd = strchr(k, '.');
                size_t tn = td ? (size_t) (td - t) : strlen(t), kn = kd ? (size_t) (kd - k) : strlen(k);
                if (!part_matches(t, tn, k, kn))
                        return false;
                if (!td || !kd)
                        return !td && !kd;
                t = td + 1, k = kd + 1;
        }
}

bool jd_documented_numeric_key(const char *key)
{
        for (size_t i = 0; i < sizeof(jd_documented_numeric_keys) / sizeof(jd_documented_numeric_keys[0]); i++)
                if (template_matches(jd_documented_numeric_keys[i], key))
                        return true;
        return false;
}
