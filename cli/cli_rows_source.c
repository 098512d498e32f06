/* Where a row family's rows came from, for `gdtune candidates` (both of
 * its forms): the --tuning-config file replaces only the families it
 * names. */
#include <stdbool.h>

#include "gdt_cli_candidates.h"

const char *gdt__cli_rows_source(const char *tuning_config, const char *row_family)
{
    gdt_row_table *ov;
    if (!tuning_config || gdt_rows_load_file(tuning_config, &ov, NULL))
        return GDT_ROWS_DEFAULT_PATH;
    bool named = gdt_rows_count(ov, row_family) > 0;
    gdt_rows_destroy(ov);
    return named ? tuning_config : GDT_ROWS_DEFAULT_PATH;
}
