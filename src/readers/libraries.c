#include "libraries.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Every name add() takes: the board has room for all of them. */
static const char *const known[] = { "cuda", "cudnn", "tensorrt", "vpi", "opencv", "opencv_cuda", "vulkan" };
_Static_assert(sizeof(known) / sizeof(known[0]) <= JD_MAX_LIBRARIES, "a slot for every library jetsond knows");

static void add(jd_board *b, const char *name, const char *version)
{
        bool is_known = false;
        for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
                is_known |= strcmp(known[i], name) == 0;
        for (size_t i = 0; i < b->n_libraries; i++)
                is_known &= strcmp(b->libraries[i].name, name) != 0; /* once each */
        /* Known and once each: never more than the board's slots. */
        if (!version || !version[0] || !is_known)
                return;
        jd_library *l = &b->libraries[b->n_libraries++];
        jd_strlcpy(l->name, name, sizeof(l->name));
        jd_strlcpy(l->version, version, sizeof(l->version));
}

/* json-glib (1.4, the floor, and newer) recurses once per nesting level
 * with no limit: 100 000 "[" end the stack. version.json nests two deep;
 * anything past JSON_DEPTH_MAX is refused before the parser sees it.
 * Brackets inside strings do not count. */
#define JSON_DEPTH_MAX 32
bool jd_json_depth_ok(const char *text, size_t len, unsigned max)
{
        unsigned depth = 0;
        bool in_string = false;
        for (size_t i = 0; i < len; i++) {
                char c = text[i];
                if (in_string) {
                        if (c == '\\')
                                i++;
                        else if (c == '"')
                                in_string = false;
                } else if (c == '"') {
                        in_string = true;
                } else if (c == '[' || c == '{') {
                        if (++depth > max)
                                return false;
                } else if ((c == ']' || c == '}') && depth > 0) {
                        depth--;
                }
        }
        return true;
}

bool jd_parse_cuda_version_json(const char *json, size_t len, char *out, size_t size)
{
        bool ok = false;
        g_autoptr(JsonParser) parser = json_parser_new();
        if (!jd_json_depth_ok(json, len, JSON_DEPTH_MAX) || !json_parser_load_from_data(parser, json, (gssize) len, NULL))
                return false;
        JsonNode *root = json_parser_get_root(parser);
        JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
        JsonNode *cn = o ? json_object_get_member(o, "cuda") : NULL;
        JsonObject *cuda = cn && JSON_NODE_HOLDS_OBJECT(cn) ? json_node_get_object(cn) : NULL;
        JsonNode *vn = cuda ? json_object_get_member(cuda, "version") : NULL;
        const char *v = vn && JSON_NODE_HOLDS_VALUE(vn) && json_node_get_value_type(vn) == G_TYPE_STRING
                                ? json_node_get_string(vn)
                                : NULL;
        /* A version too long for its slot is no version, not a cut one. */
        if (v && *v && strlen(v) < size) {
                jd_strlcpy(out, v, size);
                ok = true;
        }
        return ok;
}

/* JP5/JP6: version.json {"cuda": {"name": "CUDA SDK", "version": "12.6.68"}, ...};
 * JP4: version.txt "CUDA Version 10.2.300". */
static bool cuda_version(const jd_sysroot *sr, char *out, size_t size)
{
        size_t len = 0;
        char *json = jd_sysroot_read_whole(sr, "/usr/local/cuda/version.json", 1 << 20, &len);
        bool ok = json && jd_parse_cuda_version_json(json, len, out, size);
        free(json);
        if (ok)
                return true;
        char *txt = jd_sysroot_read_whole(sr, "/usr/local/cuda/version.txt", 4096, NULL);
        if (txt) {
                char v[64];
                if (sscanf(txt, "CUDA Version %63s", v) == 1) {
                        jd_strlcpy(out, v, size);
                        ok = true;
                }
                free(txt);
        }
        return ok;
}

/* cvconfig.h says whether OpenCV was built with CUDA, without loading it. */
static const char *opencv_cuda(const jd_sysroot *sr)
{
        static const char *const paths[] = {
                "/usr/include/opencv4/opencv2/cvconfig.h",
                "/usr/local/include/opencv4/opencv2/cvconfig.h",
        };
        for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
                char *h = jd_sysroot_read_file(sr, paths[i], 1 << 20, NULL);
                if (!h)
                        continue;
                bool cuda = false;
                for (char *l = h; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                        if (strncmp(l, "#define HAVE_CUDA", 17) == 0 &&
                            (l[17] == '\n' || l[17] == ' ' || l[17] == '\0'))
                                cuda = true;
                free(h);
                return cuda ? "yes" : "no";
        }
        return NULL;
}

void jd_libraries_read(const jd_sysroot *sr, const jd_dpkg *db, jd_board *b)
{
        char cuda[64];
        if (cuda_version(sr, cuda, sizeof(cuda)))
                add(b, "cuda", cuda);
        else
                add(b, "cuda", jd_dpkg_version_prefix(db, "cuda-cudart"));
        add(b, "cudnn", jd_dpkg_version_containing(db, "cudnn"));
        const char *trt = jd_dpkg_version(db, "tensorrt");
        add(b, "tensorrt", trt ? trt : jd_dpkg_version_prefix(db, "libnvinfer"));
        add(b, "vpi", jd_dpkg_version_containing(db, "vpi"));
        const char *cv = jd_dpkg_version_prefix(db, "libopencv");
        add(b, "opencv", cv);
        if (cv)
                add(b, "opencv_cuda", opencv_cuda(sr));
        add(b, "vulkan", jd_dpkg_version(db, "libvulkan1"));
}
