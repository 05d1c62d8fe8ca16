/* libFuzzer's entry for one target, chosen at build time (FUZZ_TARGET). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const fuzz_target *target;
        if (!target && !(target = fuzz_target_find(FUZZ_TARGET)))
                abort();
        char *text = malloc(size + 1);
        memcpy(text, data, size);
        text[size] = '\0';
        target->run(text, strlen(text));
        free(text);
        return 0;
}
