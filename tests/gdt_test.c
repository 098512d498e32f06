#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "gdt_plan_json.h"
#include "gdt_run_write.h"
#include "gdt_test.h"
#include "gdt_worker.h"
#include "gdtune/candidates.h"

int gdt_test_failures = 0;

int gdt_test_result(const char *name)
{
    if (gdt_test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, gdt_test_failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

int gdt_test_run(const char *cmd, char *out, size_t nout)
{
    char full[8192];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t got = fread(out, 1, nout ? nout - 1 : 0, p);
    if (nout)
        out[got] = 0;
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool gdt_test_figures(void)
{
    const char *v = getenv("GDT_TEST_FIGURES");
    return v && !strcmp(v, "1");
}

const char *gdt_test_exe(void)
{
    const char *e = getenv("GDTUNE_EXE");
#ifdef GDTUNE_EXE
    return e && *e ? e : GDTUNE_EXE;
#else
    return e && *e ? e : "gdtune";
#endif
}

extern char **environ;

/* Spawns argv without a shell, stdin from `in` (NULL: inherited), stdout
 * to the file `to` (NULL: into out with stderr), stderr into out. */
static int spawn_io(char *const argv[], const char *in, const char *to, char *out, size_t nout)
{
    int fds[2], infd = -1, tofd = -1;
    if (to && (tofd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
        return -1;
    if (pipe(fds) != 0) {
        if (tofd >= 0)
            close(tofd);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (in && (infd = open(in, O_RDONLY | O_CLOEXEC)) >= 0)
        posix_spawn_file_actions_adddup2(&fa, infd, 0);
    posix_spawn_file_actions_adddup2(&fa, tofd >= 0 ? tofd : fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (tofd >= 0)
        close(tofd);
    if (infd >= 0)
        close(infd);
    size_t got = 0;
    ssize_t n;
    char sink[4096];
    while ((n = read(fds[0], got + 1 < nout ? out + got : sink,
                     got + 1 < nout ? nout - 1 - got : sizeof sink)) > 0)
        if (got + 1 < nout)
            got += (size_t)n;
    close(fds[0]);
    if (nout)
        out[got] = 0;
    int st;
    if (rc != 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int gdt_test_spawn(char *const argv[], const char *in, char *out, size_t nout)
{
    return spawn_io(argv, in, NULL, out, nout);
}

int gdt_test_spawn_to(char *const argv[], const char *in, const char *to, char *out, size_t nout)
{
    return spawn_io(argv, in, to, out, nout);
}

bool gdt_test_flip_byte(const char *path, double where)
{
    struct stat st;
    unsigned char c;
    int fd = open(path, O_RDWR | O_NOFOLLOW);
    bool ok = fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0;
    off_t at = ok ? (off_t)(where * (double)st.st_size) : 0;
    at = at >= st.st_size ? st.st_size - 1 : at;
    ok = ok && pread(fd, &c, 1, at) == 1 && (c ^= 0x5a, pwrite(fd, &c, 1, at) == 1);
    if (fd >= 0)
        close(fd);
    return ok;
}

int gdt_test_remove_tree(const char *dir)
{
    char *argv[] = {"rm", "-rf", (char *)dir, NULL};
    char out[1024];
    return gdt_test_spawn(argv, NULL, out, sizeof out);
}

cJSON *gdt_test_plan_json(const char *name, const char *tag, int untimed)
{
    gdt_plan_id id;
    gdt_error e = {0};
    gdt_status s = gdt_plan_id_parse(name, &id, &e);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "%s\n", e.msg);
    cJSON *o = gdt_plan_json(&id);
    cJSON_AddBoolToObject(o, "backend", id.engine_id < GDT_ENGINE_ID_BACKEND_END);
    cJSON_AddStringToObject(o, "tag", tag);
    cJSON_AddNumberToObject(o, "untimed", untimed);
    return o;
}

/* One plan object in the spelling asked, its other members kept. */
static cJSON *respell_plan(const cJSON *p, bool old)
{
    gdt_plan_id id;
    const char *name;
    if (gdt_plan_json_read(p, "respell", "", true, &id, &name, NULL) != GDT_STATUS_OK)
        return NULL;
    cJSON *o = old ? cJSON_CreateObject() : gdt_plan_json(&id);
    if (old) {
        cJSON_AddNumberToObject(o, "engine_id", (double)id.engine_id);
        cJSON *k = cJSON_AddArrayToObject(o, "knobs");
        for (int i = 0; i < id.nknobs; i++) {
            cJSON *kv = cJSON_CreateArray();
            cJSON_AddItemToArray(kv, cJSON_CreateNumber(id.knobs[i].type));
            cJSON_AddItemToArray(kv, cJSON_CreateNumber((double)id.knobs[i].value));
            cJSON_AddItemToArray(k, kv);
        }
        cJSON_AddStringToObject(o, "name", name);
    }
    static const char *const identity[] = {"plan", "name", "engine_id", "knobs"};
    for (const cJSON *c = p->child; c; c = c->next) {
        bool own = false;
        for (size_t i = 0; i < sizeof identity / sizeof *identity; i++)
            own = own || !strcmp(c->string, identity[i]);
        if (!own)
            cJSON_AddItemToObject(o, c->string, cJSON_Duplicate(c, 1));
    }
    return o;
}

/* One journal line respelled into f (its plans counted in *n). */
static void respell_line(FILE *f, const char *line, size_t len, bool nl, bool old, int *n)
{
    char *copy = strndup(line, len);
    cJSON *rec = copy && strstr(copy, "\"type\":\"plans\"") ? cJSON_Parse(copy) : NULL;
    cJSON *plans = cJSON_GetObjectItem(rec, "plans");
    char *text = NULL;
    for (int i = 0; cJSON_IsArray(plans) && i < cJSON_GetArraySize(plans); i++) {
        cJSON *q = respell_plan(cJSON_GetArrayItem(plans, i), old);
        if (q) {
            cJSON_ReplaceItemInArray(plans, i, q);
            (*n)++;
        }
    }
    if (rec)
        text = cJSON_PrintUnformatted(rec);
    fputs(text ? text : copy ? copy : "", f);
    if (nl)
        fputc('\n', f);
    free(text);
    cJSON_Delete(rec);
    free(copy);
}

int gdt_test_journal_respell(const char *path, bool old)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, len = 0;
    if (!f)
        return -1;
    for (size_t k = 1; k;) {
        if (len + 65536 > cap && !(buf = realloc(buf, cap = 2 * cap + 65536)))
            return fclose(f), -1;
        len += k = fread(buf + len, 1, cap - len, f);
    }
    fclose(f);
    if (!(f = fopen(path, "wb")))
        return free(buf), -1;
    int n = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - buf) : len;
        respell_line(f, buf + at, end - at, nl != NULL, old, &n);
        at = end + 1;
    }
    free(buf);
    return fclose(f) == 0 ? n : -1;
}

int gdt_test_one_plan_worker(double noise, bool refuse_others)
{
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        cJSON *req = cJSON_Parse(line);
        const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(req, "op"));
        if (op && !strcmp(op, "hello"))
            printf("{\"op\":\"hello\",\"device\":{\"name\":\"Stand-in GPU\",\"arch\":90,\"sm_count\":132,"
                   "\"uuid\":\"GPU-stand-in\",\"driver_version\":13000,\"device_count\":1}}\n");
        else if (op && !strcmp(op, "cell"))
            printf("{\"op\":\"cell\",\"reference\":\"cudnn.eng0\",\"plans\":[{\"plan\":\"cudnn.eng0\",\"engine_id\":0,"
                   "\"knobs\":{},\"backend\":true,\"tag\":\"A\",\"untimed\":0}]}\n");
        else if (op && !strcmp(op, "plan"))
            printf("{\"op\":\"result\",\"disposition\":\"verified\",\"error\":\"\",\"build_s\":0.1,"
                   "\"verify_err\":[0.001],\"bursts\":[{\"burst\":1,\"host_us\":[5],\"device_us\":[10],"
                   "\"total_us\":[12],\"median_host_us\":5,\"median_device_us\":10,\"rel_spread\":%.17g}],"
                   "\"cold_us\":[20],\"time_us\":10,\"noise\":%.17g,\"fatal\":false}\n", noise, noise);
        else if (op && refuse_others)
            printf("{\"op\":\"error\",\"status\":\"NOT_SUPPORTED\",\"error\":\"stand-in\",\"fatal\":false}\n");
        fflush(stdout);
        cJSON_Delete(req);
    }
    return 0;
}

void gdt_test_facts(gdt_family family, const char *shape, int arch, gdt_facts *f)
{
    gdt_problem p;
    gdt_device_props dev;
    gdt_error e = {0};
    memset(f, 0, sizeof *f);
    CHECK_INT(gdt_problem_parse(family, shape, &p, &e), ==, GDT_STATUS_OK);
    CHECK(gdt_arch_limits(arch, &dev));
    gdt_facts_analyze(&p, &dev, f);
}

gdt_journal *gdt_test_journal_begin(const char *dir, const gdt_sweep_spec *spec, const char *device,
                                    const char *started, const gdt_run_options *options)
{
    gdt_journal *j = NULL;
    gdt_error e = {0};
    cJSON *dev = cJSON_CreateObject();
    const char *gpus[] = {"GPU-synthetic"};
    cJSON_AddStringToObject(dev, "name", device);
    cJSON_AddNumberToObject(dev, "arch", 90);
    cJSON_AddNumberToObject(dev, "sm_count", 132);
    gdt_run_header_rec h = {.started = started, .family = "gemm", .spec = spec, .candidates_digest = "0",
                            .arch = 90, .device = dev, .gpus = gpus, .ngpus = 1, .options = *options};
    gdt_status s = gdt_journal_open(dir, false, &j, &e);
    if (s == GDT_STATUS_OK)
        s = gdt_run_write_header(j, &h, &e);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "  %s: %s\n", dir, e.msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    cJSON_Delete(dev);
    if (s != GDT_STATUS_OK && j) {
        gdt_journal_close(j);
        j = NULL;
    }
    return j;
}

cJSON *gdt_test_burst_json(int burst, const double *x, int n)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddNumberToObject(b, "burst", burst);
    cJSON_AddItemToObject(b, "host_us", cJSON_CreateDoubleArray(x, n));
    cJSON_AddItemToObject(b, "device_us", cJSON_CreateDoubleArray(x, n));
    cJSON_AddItemToObject(b, "total_us", cJSON_CreateDoubleArray(x, n));
    return b;
}

int gdt_test_emit_kept(const char *journal_gz, const char *root, const char *name, char *out, size_t nout)
{
    char run[512], path[600], tables[512];
    snprintf(run, sizeof run, "%s/run-%s", root, name);
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    snprintf(tables, sizeof tables, "%s/tables-%s", root, name);
    if (mkdir(run, 0700) != 0 || gdt_test_gunzip_to(journal_gz, path) != 0)
        return -1;
    char *argv[] = {(char *)gdt_test_exe(), "tables", "emit", run, "--tables-dir", tables, NULL};
    int rc = gdt_test_spawn(argv, NULL, out, nout);
    if (rc != 0)
        fprintf(stderr, "tables emit %s: exit %d: %s\n", journal_gz, rc, out);
    return rc;
}

void gdt_test_log_hello_rows(const cJSON *req)
{
    const char *log = getenv("GDT_FAKE_ROWS_LOG");
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(req, "rows"));
    char line[80] = "absent";
    gdt_row_table *t = NULL;
    if (!log)
        return;
    if (text && gdt_rows_load_text(text, strlen(text), "hello: /rows", &t, NULL) == GDT_STATUS_OK)
        gdt_rows_digest(t, line);
    else if (text)
        snprintf(line, sizeof line, "unloadable");
    gdt_rows_destroy(t);
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
    if (fd >= 0)
        dprintf(fd, "%s\n", line), close(fd);
}
