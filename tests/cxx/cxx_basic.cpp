// tests/cxx/cxx_basic.cpp: a C++ program over mpi.h (extern "C"), built
// with bin/mpicxx: MPI_THREAD_MULTIPLE, an in-place Allreduce of a
// std::vector, a ring of messages. Prints "cxx: ok" on rank 0.
#include <mpi.h>
#include <cstdio>
#include <vector>
#include <numeric>
int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank = -1, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<double> v(1000, rank + 1.0);
    MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double want = size * (size + 1) / 2.0;
    int bad = 0;
    for (double x : v)
        bad += x != want;
    MPI_Status st;
    int tok = rank;
    if (size > 1) {
        if (rank == 0) {
            MPI_Send(&tok, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            MPI_Recv(&tok, 1, MPI_INT, size - 1, 5, MPI_COMM_WORLD, &st);
            bad += tok != size - 1;
        } else {
            MPI_Recv(&tok, 1, MPI_INT, rank - 1, 5, MPI_COMM_WORLD, &st);
            tok = rank;
            MPI_Send(&tok, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD);
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("%s (provided %d)\n", bad ? "FAIL" : "cxx: ok", provided);
    MPI_Finalize();
    return bad != 0;
}
