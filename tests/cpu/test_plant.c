/* The planted slowdown (gdt_plant.h): the spec's parser (bad specs refused
 * naming the entry and what was expected), the gate (no effect without
 * GDTUNE_ENABLE_PLANT=1), the lookup by plan identity, the canonical text
 * and the spin's cycles per call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_plant.h"
#include "gdt_test.h"

static void test_parse(void)
{
    gdt_plant p;
    gdt_error e = {0};
    CHECK_INT(gdt_plant_parse(" gemm.cublaslt[TILE_SIZE=20, ALGO=66]=0.05 ; cudnn.eng0=0.1", &p, &e), ==,
              GDT_STATUS_OK);
    CHECK_INT(p.n, ==, 2);
    char text[GDT_PLANT_TEXT];
    gdt_plant_format(&p, text, sizeof text);
    CHECK_STR(text, "gemm.cublaslt[ALGO=66, TILE_SIZE=20]=0.05;cudnn.eng0=0.1"); /* normalized */
    gdt_plan_id id;
    CHECK_INT(gdt_plan_id_parse("gemm.cublaslt[ALGO=66, TILE_SIZE=20]", &id, &e), ==, GDT_STATUS_OK);
    CHECK_NEAR(gdt_plant_fraction(&p, &id), 0.05, 1e-12);
    CHECK_INT(gdt_plan_id_parse("cudnn.eng1", &id, &e), ==, GDT_STATUS_OK);
    CHECK_NEAR(gdt_plant_fraction(&p, &id), 0, 0);
    CHECK_NEAR(gdt_plant_fraction(NULL, &id), 0, 0);

    static const struct { const char *spec, *msg; } bad[] = {
        {"", "\"\": expected PLAN=FRACTION[;PLAN=FRACTION]..., got an empty entry"},
        {"cudnn.eng0=0.1;", "got an empty entry"},
        {"cudnn.eng0", "entry \"cudnn.eng0\": expected PLAN=FRACTION"},
        {"cudnn.eng0=0", "entry \"cudnn.eng0=0\": expected a fraction in (0, 1] after the last '=', got \"0\""},
        {"cudnn.eng0=1.5", "expected a fraction in (0, 1] after the last '=', got \"1.5\""},
        {"cudnn.eng0=5%", "got \"5%\""},
        {"cudnn.eng0=nan", "got \"nan\""},
        {"=0.1", "entry \"=0.1\": expected a plan name as `gdtune plans` prints it before the last '=', got \"\""},
        {"nosuch.engine=0.1", "got \"nosuch.engine\": "},
        {"cudnn.eng0=0.1;cudnn.eng0=0.2", "entry \"cudnn.eng0=0.2\": plan cudnn.eng0 is named twice"},
        {"cudnn.eng0=0.1;cudnn.eng1=0.1;cudnn.eng2=0.1;cudnn.eng3=0.1;cudnn.eng4=0.1;cudnn.eng5=0.1;"
         "cudnn.eng6=0.1;cudnn.eng7=0.1;cudnn.eng8=0.1", "entry \"cudnn.eng8=0.1\": at most 8 plans"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gdt_error be = {0};
        CHECK_INT(gdt_plant_parse(bad[i].spec, &p, &be), ==, GDT_STATUS_BAD_USAGE);
        CHECK_CONTAINS(be.msg, bad[i].msg);
    }
}

static void test_gate(void)
{
    gdt_plant p;
    gdt_error e = {0};
    bool ignored = false;
    unsetenv("GDTUNE_ENABLE_PLANT");
    unsetenv(GDT_PLANT_ENV);
    CHECK_INT(gdt_plant_from_env(&p, &ignored, &e), ==, GDT_STATUS_OK);
    CHECK_INT(p.n, ==, 0);
    CHECK(!ignored);
    setenv(GDT_PLANT_ENV, "cudnn.eng0=0.1", 1);
    CHECK_INT(gdt_plant_from_env(&p, &ignored, &e), ==, GDT_STATUS_OK);
    CHECK_INT(p.n, ==, 0); /* not enabled: no effect */
    CHECK(ignored);
    setenv("GDTUNE_ENABLE_PLANT", "yes", 1);
    CHECK_INT(gdt_plant_from_env(&p, &ignored, &e), ==, GDT_STATUS_OK);
    CHECK_INT(p.n, ==, 0);
    setenv("GDTUNE_ENABLE_PLANT", "1", 1);
    CHECK_INT(gdt_plant_from_env(&p, &ignored, &e), ==, GDT_STATUS_OK);
    CHECK_INT(p.n, ==, 1);
    CHECK(!ignored);
    setenv(GDT_PLANT_ENV, "cudnn.eng0=2", 1);
    CHECK_INT(gdt_plant_from_env(&p, &ignored, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "GDTUNE_PLANT_SLOWDOWN: entry \"cudnn.eng0=2\": expected a fraction");
    unsetenv(GDT_PLANT_ENV);
    unsetenv("GDTUNE_ENABLE_PLANT");
}

/* The spin's cycles: a plan of 100 us, a spin launch of 2 us, at 1000 MHz. */
static void test_spin_cycles(void)
{
    /* 10%: the spin adds 10 us, of which the launch is 2: 8 us of cycles */
    CHECK_INT(gdt_plant_spin_cycles(0.10, 100, 2, 1000), ==, 8000);
    CHECK_INT(gdt_plant_spin_cycles(0.03, 100, 2, 1000), ==, 1000);
    CHECK_INT(gdt_plant_spin_cycles(0.10, 100, 2, 1980), ==, 15840); /* the clock scales them */
    CHECK_INT(gdt_plant_spin_cycles(0.10, 3000, 2, 1000), ==, 298000);
    /* the launch alone adds 2%: a 1% or 2% plant gets no cycles, the launch only */
    CHECK_INT(gdt_plant_spin_cycles(0.01, 100, 2, 1000), ==, 0);
    CHECK_INT(gdt_plant_spin_cycles(0.02, 100, 2, 1000), ==, 0);
    /* no fraction, no clock: none */
    CHECK_INT(gdt_plant_spin_cycles(0, 100, 2, 1000), ==, 0);
    CHECK_INT(gdt_plant_spin_cycles(0.10, 100, 2, 0), ==, 0);
}

/* The spin's launch behind the plan, at 1000 MHz (1000 cycles a us). */
static void test_launch(void)
{
    /* a first spin of 10 us took the 100 us plan to 111.5: 1.5 us of launch */
    CHECK(fabs(gdt_plant_launch_us(100, 111.5, 10000, 1000, 3.5) - 1.5) < 1e-9);
    /* noise: a call faster than the plan and its spin launches in no time */
    CHECK(gdt_plant_launch_us(100, 109, 10000, 1000, 3.5) == 0);
    /* a noisy 25 us beyond (the H100's 340 us plan): at most an empty spin alone */
    CHECK(gdt_plant_launch_us(340, 399, 34000, 1000, 3.5) == 3.5);
    /* no clock read: the cycles count nothing, the bound still holds */
    CHECK(gdt_plant_launch_us(100, 101, 10000, 0, 3.5) == 1);
}

int main(void)
{
    test_parse();
    test_gate();
    test_spin_cycles();
    test_launch();
    return gdt_test_result("test_plant");
}
