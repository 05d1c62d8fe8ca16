/* The fake NVML's JSON file for the unit tests of the NVML reader: a file
 * of its own in a temporary directory per test (FAKE_NVML_CONFIG), and
 * cmocka's setup and teardown that make and remove it. */
#pragma once

/* Replaces the file with JSON: a new inode each time, so the fake notices
 * the change at once, whatever the file system's time resolution. */
void fake_nvml_write_config(const char *json);
/* No file at all (the fake then lists no GPU). */
void fake_nvml_remove_config(void);
/* cmocka setup: a new directory and FAKE_NVML_CONFIG naming its file. */
int fake_nvml_setup(void **state);
/* cmocka teardown: the file and its directory removed. */
int fake_nvml_teardown(void **state);
