/* STUB: replaced by its owner. */
#include "gdt_test.h"
int main(void) { return gdt_test_result("asan_json_corpus"); }
