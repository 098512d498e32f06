/* Mode A's backend block on a shape no cell covers: a config the model
 * knows well and predicts clearly faster than the heuristic's first moves
 * ahead of it; one within the rule's width keeps the heuristic's order;
 * one the model cannot predict keeps its place; a swept cell keeps its
 * measured order (the block is not reordered there).  The lead rule puts
 * ours ahead of that block or not, in the planner as in its unit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "facts_support.h"
#include "gdt_predict.h"
#include "gdt_tables_lookup.h"
#include "gdt_test.h"
#include "plan_support.h"
#include "gdt_util.h"
#include "gdtune/plan.h"

static gdt_plan_id be(int64_t eng, int64_t cfg)
{
    gdt_plan_id id = {.engine_id = eng};
    gdt_plan_id_set_knob(&id, GDT_KNOB_KERNEL_CFG, cfg);
    return id;
}

/* A model whose predictions are exp(intercept): no slopes. */
typedef struct known { gdt_plan_id id; int ncells; double us; } known;

static gdt__predictor model_of(const known *k, int n)
{
    gdt__predictor p = {.sm_count = 132, .nfeatures = gdt__predict_nfeatures(GDT_FAMILY_GEMM), .nplans = n};
    p.plans = calloc((size_t)n, sizeof *p.plans);
    for (int i = 0; i < n; i++) {
        p.plans[i] = (gdt__pred_plan){.is_backend = true, .ncells = k[i].ncells, .intercept = log(k[i].us)};
        gdt__pred_plan_named(&p.plans[i], &k[i].id);
    }
    /* sorted by name, as the fit leaves them */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            if (strcmp(p.plans[j - 1].name, p.plans[j].name) <= 0) break;
            gdt__pred_plan x = p.plans[j];
            p.plans[j] = p.plans[j - 1], p.plans[j - 1] = x;
        }
    return p;
}

static void expect_block(const gdt_plan_id *got, int n, const gdt_plan_id *want, int nw, int line)
{
    CHECK_INT(n, ==, nw);
    for (int i = 0; i < n && i < nw; i++)
        if (!gdt_plan_id_equal(&got[i], &want[i])) {
            fprintf(stderr, "line %d: block[%d] differs\n", line, i);
            CHECK(gdt_plan_id_equal(&got[i], &want[i]));
        }
}

/* The heuristic lists h0 (known, 10 us), h1 (measured in one cell); the
 * model also knows k (fast: 5 us, or close: 9.9 us) and r (one cell). */
static void test_block(void)
{
    gdt_facts f;
    test_facts(GDT_FAMILY_GEMM, "m=2048,n=8192,k=4096", 90, &f);
    gdt_plan_id h0 = be(1, 0), h1 = be(2, 0), k = be(3, 0), r = be(4, 0), out[8];
    const gdt_plan_id heur[] = {h0, h1};
    known fast[] = {{h0, 8, 10}, {h1, 1, 1}, {k, 8, 5}, {r, 1, 1}};
    gdt__predictor p = model_of(fast, 4);
    /* clearly faster: k takes h0's place, h0 the place k held; h1, though
     * predicted fastest of all, keeps its place and r is not added */
    int n = gdt__predict_block(&p, &f, 0.05, heur, 2, out);
    expect_block(out, n, (const gdt_plan_id[]){k, h1, h0}, 3, __LINE__);
    gdt__predictor_clear(&p);
    /* within the width (1% apart, rel 5%): the heuristic's order */
    known close[] = {{h0, 8, 10}, {h1, 1, 1}, {k, 8, 9.9}, {r, 1, 1}};
    p = model_of(close, 4);
    n = gdt__predict_block(&p, &f, 0.05, heur, 2, out);
    expect_block(out, n, (const gdt_plan_id[]){h0, h1, k}, 3, __LINE__);
    /* rel 0: the fastest known goes first */
    n = gdt__predict_block(&p, &f, 0, heur, 2, out);
    expect_block(out, n, (const gdt_plan_id[]){k, h1, h0}, 3, __LINE__);
    gdt__predictor_clear(&p);
    /* fewer than GDT__PREDICT_BLOCK_CELLS cells: k is not known well */
    known thin[] = {{h0, 8, 10}, {k, GDT__PREDICT_BLOCK_CELLS - 1, 5}};
    p = model_of(thin, 2);
    n = gdt__predict_block(&p, &f, 0.05, heur, 2, out);
    expect_block(out, n, heur, 2, __LINE__);
    gdt__predictor_clear(&p);
}

/* The lead rules: DIRECT compares our first plan's predicted time with
 * the block's first, within the rule's width no lead; where the block's
 * first is unknown, and under RATIO, the placement ratio decides. */
static void test_lead_rule(void)
{
    gdt_facts f;
    double r;
    test_facts(GDT_FAMILY_GEMM, "m=2048,n=8192,k=4096", 90, &f);
    gdt__predictor p = {.sm_count = 132, .nfeatures = gdt__predict_nfeatures(GDT_FAMILY_GEMM), .has_ratio = true};
    for (int j = 0; j < p.nfeatures; j++) p.ratio_lo[j] = -1e9, p.ratio_hi[j] = 1e9;
    p.ratio[0] = log(1.5); /* the ratio: ours 1.5x the backend's first, everywhere */
    CHECK(gdt__predict_lead(&p, GDT__LEAD_DIRECT, &f, 9, 10, 0.05, &r));
    CHECK_NEAR(r, 0.9, 1e-12);
    CHECK(!gdt__predict_lead(&p, GDT__LEAD_DIRECT, &f, 9.8, 10, 0.05, &r)); /* within the width */
    CHECK(!gdt__predict_lead(&p, GDT__LEAD_RATIO, &f, 9, 10, 0.05, &r));
    CHECK_NEAR(r, 1.5, 1e-12);
    CHECK(!gdt__predict_lead(&p, GDT__LEAD_DIRECT, &f, 9, NAN, 0.05, &r)); /* block unknown: the ratio */
    CHECK_NEAR(r, 1.5, 1e-12);
    p.ratio[0] = log(0.5);
    CHECK(gdt__predict_lead(&p, GDT__LEAD_DIRECT, &f, 12, NAN, 0.05, &r));
    CHECK(!gdt__predict_lead(&p, GDT__LEAD_DIRECT, &f, 12, 10, 0.05, &r));
    CHECK(!gdt__predict_lead(&p, GDT__LEAD_RATIO, &f, NAN, 10, 0.05, &r)); /* none of ours: never */
    p.has_ratio = false;
    CHECK(!gdt__predict_lead(&p, GDT__LEAD_RATIO, &f, 9, 10, 0.05, &r));
    CHECK(isnan(r));
}

/* The lead rule's width next to its edge: ours lead when the ratio r
 * (ours / the block's first) is below 1 by more than half the width
 * rel = noise x err times (1 + r), here rel = 0.5 x 0.1 = 0.05, the edge at
 * r = 0.975 / 1.025 = 0.95122.  Just inside (0.95) and just outside
 * (0.953), so that a width twice as wide (edge 0.9048) or half as wide
 * (0.9753) fails one of them; the same for the block's ranking, by the
 * same comparison. */
static void test_lead_width(void)
{
    gdt_facts f;
    double r;
    test_facts(GDT_FAMILY_GEMM, "m=2048,n=8192,k=4096", 90, &f);
    gdt__predictor p = {.sm_count = 132, .nfeatures = gdt__predict_nfeatures(GDT_FAMILY_GEMM), .has_ratio = true,
                        .noise = 0.5, .cv = {.err = 0.1}};
    for (int j = 0; j < p.nfeatures; j++) p.ratio_lo[j] = -1e9, p.ratio_hi[j] = 1e9;
    double rel = gdt__predict_rel(&p);
    CHECK_NEAR(rel, 0.05, 1e-15);
    CHECK(gdt__predict_lead(&p, GDT__LEAD_DIRECT, &f, 9.5, 10, rel, &r));
    CHECK(!gdt__predict_lead(&p, GDT__LEAD_DIRECT, &f, 9.53, 10, rel, &r));
    p.ratio[0] = log(0.95);
    CHECK(gdt__predict_lead(&p, GDT__LEAD_RATIO, &f, 9.99, 10, rel, &r));
    p.ratio[0] = log(0.953);
    CHECK(!gdt__predict_lead(&p, GDT__LEAD_RATIO, &f, 1, 10, rel, &r));
    /* the block: k at 9.5 goes ahead of the heuristic's 10, at 9.53 not */
    gdt_plan_id h0 = be(1, 0), k = be(3, 0), out[4];
    known in[] = {{h0, 8, 10}, {k, 8, 9.5}}, edge[] = {{h0, 8, 10}, {k, 8, 9.53}};
    gdt__predictor b = model_of(in, 2);
    int n = gdt__predict_block(&b, &f, rel, &h0, 1, out);
    expect_block(out, n, (const gdt_plan_id[]){k, h0}, 2, __LINE__);
    gdt__predictor_clear(&b);
    b = model_of(edge, 2);
    n = gdt__predict_block(&b, &f, rel, &h0, 1, out);
    expect_block(out, n, (const gdt_plan_id[]){h0, k}, 2, __LINE__);
    gdt__predictor_clear(&b);
}

/* ------------------------------------------------------ the planner */

/* A backend whose mode-A heuristic lists a config no table measured, then
 * the committed gemm table's first measured backend config. */
static gdt_plan_id listed[2];

static gdt_status standin_list(void *ctx, const gdt_facts *f, gdt_mode mode, gdt_plan_entry **out, int *n,
                               gdt_error *e)
{
    (void)ctx, (void)f, (void)e;
    *out = calloc(2, sizeof **out);
    for (int i = 0; i < 2; i++)
        (*out)[i] = (gdt_plan_entry){.id = listed[i], .is_backend = true, .mode = mode, .why = "backend heuristic"};
    *n = 2;
    return GDT_STATUS_OK;
}

static const gdt_engine_ops no_ops = {0};
static const gdt_backend backend = {.list = standin_list, .ops = &no_ops};

static gdt_graph *planned(const char *shape, const gdt_tables *t)
{
    gdt_plan_options o = {.tables = t, .backend = &backend, .modes = {GDT_MODE_A}, .nmodes = 1};
    return test_planned_gemm(shape, &o);
}

/* Backend entries of the plan list, in order. */
static int backend_entries(const gdt_graph *g, const gdt_plan_entry **v, int cap)
{
    int n = 0;
    for (int i = 0; i < gdt_graph_plan_count(g); i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        if (x->is_backend && n < cap) v[n++] = x;
    }
    return n;
}

/* Mode A on an unswept shape puts ours ahead of the backend's block as
 * the tables' lead rule says for our first plan and the block's first;
 * true when it did. */
static bool placed_lead(const gdt_tables *t, const gdt_graph *g)
{
    int ours = -1, block = -1;
    for (int i = 0; i < gdt_graph_plan_count(g); i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        if (x->is_backend && block < 0) block = i;
        if (!x->is_backend && !x->is_marker && !strcmp(x->why, "predicted time") && ours < 0) ours = i;
    }
    CHECK(ours >= 0 && block >= 0);
    if (ours < 0 || block < 0) return false;
    const gdt_plan_entry *o = gdt_graph_plan_at(g, ours), *b = gdt_graph_plan_at(g, block);
    CHECK_INT(ours < block, ==, gdt__tables_lead(t, gdt_graph_facts(g), &o->id, &b->id));
    return ours < block;
}

/* A backend config the model knows from fewer than GDT__PREDICT_BLOCK_CELLS
 * cells (so it keeps its place at the block's head) predicted on f more
 * than `factor` times t_us (factor > 1) or less (factor < 1). */
static bool thin_config(const gdt_tables *t, const gdt_facts *f, double t_us, double factor, gdt_plan_id *out)
{
    for (int i = 0; i < gdt_tables_ncells(t); i++) {
        gdt_table_cell tc;
        CHECK(gdt_tables_cell(t, i, &tc));
        for (int k = 0; k < tc.nranked; k++) {
            gdt_plan_time pt;
            if (!tc.ranked[k].is_backend) continue;
            gdt_tables_plan_time(t, f, &tc.ranked[k].id, &pt);
            if (pt.source != GDT_TIME_PREDICTED || pt.ncells >= GDT__PREDICT_BLOCK_CELLS) continue;
            if (factor > 1 ? pt.time_us > factor * t_us : pt.time_us < factor * t_us) {
                *out = tc.ranked[k].id;
                return true;
            }
        }
    }
    return false;
}

/* The predicted time of our first plan on shape, planned with listed[0]
 * unknown to the model. */
static double ours_first_us(const gdt_tables *t, const char *shape)
{
    listed[0] = be(7, 424242);
    gdt_graph *g = planned(shape, t);
    gdt_plan_id id = {.engine_id = -1};
    gdt_plan_time pt = {.time_us = NAN};
    for (int i = 0; i < gdt_graph_plan_count(g) && id.engine_id < 0; i++)
        if (!gdt_graph_plan_at(g, i)->is_backend) id = gdt_graph_plan_at(g, i)->id;
    gdt_tables_plan_time(t, gdt_graph_facts(g), &id, &pt);
    gdt_graph_destroy(g);
    return pt.time_us;
}

/* Whether the committed GEMM model's lead rule is direct (else ratio). */
static bool committed_rule_direct(void)
{
    char *text = NULL;
    size_t n = 0;
    gdt_error e;
    CHECK_INT(gdt_file_read(GDT_SOURCE_DIR "/tables/sm90/gemm.placement.json", &text, &n, &e), ==, GDT_STATUS_OK);
    bool direct = text && strstr(text, "\"lead\": \"direct\"");
    CHECK(direct || (text && strstr(text, "\"lead\": \"ratio\"")));
    free(text);
    return direct;
}

/* The lead rule on unswept shapes: the planner places ours as
 * gdt__tables_lead says for our first plan and the block's first, whether
 * the model knows that plan or not (then the ratio decides).  Under the
 * direct rule a block headed by a config predicted slower than our first
 * beyond the model's interval is led by ours, one headed by a config
 * predicted well faster is not; under the ratio rule (the committed GEMM
 * model's, tables/README.md) the block's head does not move the lead. */
static void test_planner_lead(const gdt_tables *t, const gdt_plan_id *known_be)
{
    static const char *const shapes[] = {"m=64,n=4096,k=4096", "m=192,n=4096,k=4096", "m=768,n=14336,k=4096",
                                         "m=3072,n=4096,k=14336", "m=24576,n=14336,k=4096"};
    int slow_cases = 0, fast_cases = 0;
    bool direct = committed_rule_direct();
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        double ours_us = ours_first_us(t, shapes[i]);
        int slow_led = -1;
        for (int k = 0; k < 4; k++) {
            gdt_plan_id head = k == 0 ? be(7, 424242) : *known_be;
            gdt_facts f;
            test_facts(GDT_FAMILY_GEMM, shapes[i], 90, &f);
            gdt__first d; /* a lead must exceed the model's interval at the shape */
            gdt__tables_first(t, &f, NULL, NULL, NULL, &d);
            if (k == 2 && !thin_config(t, &f, ours_us, fmax(1.15, 1.05 * exp(d.width)), &head)) continue;
            if (k == 3 && !thin_config(t, &f, ours_us, 0.87, &head)) continue;
            listed[0] = head;
            gdt_graph *g = planned(shapes[i], t);
            bool led = placed_lead(t, g);
            gdt_graph_destroy(g);
            if (k == 2) {
                CHECK(led || !direct);
                slow_led = led;
                slow_cases++;
            }
            if (k == 3) {
                CHECK(direct ? !led : slow_led < 0 || led == (bool)slow_led);
                fast_cases++;
            }
        }
    }
    CHECK(slow_cases > 0 && fast_cases > 0);
}

static void test_planner(void)
{
    gdt_tables *t = NULL;
    gdt_error e;
    CHECK_INT(gdt_tables_load(GDT_SOURCE_DIR "/tables", GDT_FAMILY_GEMM, 90, &t, &e), ==, GDT_STATUS_OK);
    gdt_table_cell tc;
    CHECK(gdt_tables_cell(t, 0, &tc));
    gdt_graph *g = planned("m=2048,n=8192,k=4096", t);
    gdt_cell_decision d;
    CHECK(!gdt_tables_lookup(t, gdt_graph_facts(g), &d) || !d.measured);
    /* a swept cell's measured backend config names one the model knows */
    gdt_graph *swept = planned("m=4096,n=4096,k=4096", t);
    CHECK(gdt_tables_lookup(t, gdt_graph_facts(swept), &d) && d.measured);
    int kb = -1;
    for (int i = 0; i < d.nranked && kb < 0; i++)
        if (d.ranked_is_backend[i]) kb = i;
    CHECK(kb >= 0);
    listed[0] = be(7, 424242), listed[1] = kb >= 0 ? d.ranked[kb] : be(1, 0);
    gdt_graph_destroy(g);
    gdt_graph_destroy(swept);
    /* the swept cell: the heuristic's block exactly as listed, nothing added */
    swept = planned("m=4096,n=4096,k=4096", t);
    const gdt_plan_entry *v[256];
    int n = backend_entries(swept, v, 256), from_model = 0;
    for (int i = 0; i < n; i++) from_model += !strcmp(v[i]->why, "predicted time");
    CHECK_INT(from_model, ==, 0);
    /* unswept: the unknown config keeps its first place; the model adds
     * the backend configs it knows well */
    g = planned("m=2048,n=8192,k=4096", t);
    n = backend_entries(g, v, 256);
    CHECK(n > 2 && gdt_plan_id_equal(&v[0]->id, &listed[0]));
    from_model = 0;
    for (int i = 0; i < n; i++) from_model += !strcmp(v[i]->why, "predicted time");
    CHECK(from_model > 0);
    gdt_graph_destroy(g);
    gdt_graph_destroy(swept);
    test_planner_lead(t, &listed[1]);
    gdt_tables_destroy(t);
}

int main(void)
{
    test_block();
    test_lead_rule();
    test_lead_width();
    test_planner();
    return gdt_test_result("test_predict_block");
}
