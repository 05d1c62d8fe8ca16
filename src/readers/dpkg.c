#include "dpkg.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "parse.h"
#include "sysroot.h"

#define DPKG_STATUS_MAX (64u << 20)

void jd_upstream_version(const char *v, char *out, size_t size)
{
        const char *colon = strchr(v, ':');
        if (colon)
                v = colon + 1;
        size_t n = strcspn(v, "-+~");
        if (n >= size)
                n = size - 1;
        memcpy(out, v, n);
        out[n] = '\0';
}

static void add_package(jd_dpkg *db, const char *name, const char *version)
{
        /* Doubling: a status file of thousands of packages in linear time. */
        jd_package *grown = jd_grow(db->pkgs, &db->cap, db->n + 1, sizeof(*grown));
        if (!grown)
                return;
        db->pkgs = grown;
        char upstream[128];
        jd_upstream_version(version, upstream, sizeof(upstream));
        db->pkgs[db->n].name = strdup(name);
        db->pkgs[db->n].version = strdup(upstream);
        db->n++;
}

void jd_dpkg_load(jd_dpkg *db, const jd_sysroot *sr)
{
        db->pkgs = NULL;
        db->n = db->cap = 0;
        char *text = jd_sysroot_read_whole(sr, "/var/lib/dpkg/status", DPKG_STATUS_MAX, NULL);
        if (!text)
                return;
        jd_dpkg_parse(db, text);
        free(text);
}

/* The value of a "Field:" line into OUT, blanks around it dropped; false
 * (OUT empty) when it does not fit: a cut name would be another package. */
static bool field_value(const char *l, size_t field_len, char *out, size_t size)
{
        const char *v = l + field_len + strspn(l + field_len, " \t");
        size_t n = strlen(v);
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
                n--;
        out[0] = '\0';
        if (n >= size)
                return false;
        memcpy(out, v, n);
        out[n] = '\0';
        return true;
}

void jd_dpkg_parse(jd_dpkg *db, char *text)
{
        db->pkgs = NULL;
        db->n = db->cap = 0;

        char name[256] = "", version[256] = "";
        bool installed = false;
        char *save = NULL;
        for (char *line = text;; line = NULL) {
                char *l = strtok_r(line, "\n", &save);
                /* strtok_r folds blank lines away, so a stanza ends when the
                 * next "Package:" starts (or at the end of the file). */
                bool next = !l || strncmp(l, "Package:", 8) == 0;
                if (next && name[0] && version[0] && installed)
                        add_package(db, name, version);
                if (!l)
                        break;
                if (next) {
                        field_value(l, 8, name, sizeof(name));
                        version[0] = '\0';
                        installed = false;
                } else if (strncmp(l, "Status:", 7) == 0) {
                        installed = strstr(l, "install ok installed") != NULL;
                } else if (strncmp(l, "Version:", 8) == 0) {
                        field_value(l, 8, version, sizeof(version));
                }
        }
}

void jd_dpkg_free(jd_dpkg *db)
{
        for (size_t i = 0; i < db->n; i++) {
                free(db->pkgs[i].name);
                free(db->pkgs[i].version);
        }
        free(db->pkgs);
        db->pkgs = NULL;
        db->n = db->cap = 0;
}

const char *jd_dpkg_version(const jd_dpkg *db, const char *name)
{
        for (size_t i = 0; i < db->n; i++)
                if (strcmp(db->pkgs[i].name, name) == 0)
                        return db->pkgs[i].version;
        return NULL;
}

const char *jd_dpkg_version_prefix(const jd_dpkg *db, const char *prefix)
{
        size_t len = strlen(prefix);
        for (size_t i = 0; i < db->n; i++)
                if (strncmp(db->pkgs[i].name, prefix, len) == 0)
                        return db->pkgs[i].version;
        return NULL;
}

const char *jd_dpkg_version_containing(const jd_dpkg *db, const char *needle)
{
        for (size_t i = 0; i < db->n; i++)
                if (strstr(db->pkgs[i].name, needle))
                        return db->pkgs[i].version;
        return NULL;
}
