/* tests/shared/host.c: a program built without MPI (plain cc) that loads
 * an MPI shared object at run time and runs it, as Python does with an MPI
 * module: `host PLUGIN.so`. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *h;
    int (*run)(int *, char ***);

    if (argc < 2) {
        fprintf(stderr, "usage: host PLUGIN.so\n");
        return 2;
    }
    h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "host: %s\n", dlerror());
        return 2;
    }
    *(void **)&run = dlsym(h, "plugin_main");
    if (!run) {
        fprintf(stderr, "host: %s\n", dlerror());
        return 2;
    }
    return run(&argc, &argv);
}
