! tests/fortran/topocoll.f: the graph topology (a ring: MPI_GRAPH_CREATE,
! MPI_GRAPH_NEIGHBORS_COUNT, MPI_GRAPH_NEIGHBORS, MPI_TOPO_TEST),
! MPI_NEIGHBOR_ALLTOALL on it, an unweighted distributed graph
! (MPI_DIST_GRAPH_CREATE_ADJACENT with MPI_UNWEIGHTED,
! MPI_DIST_GRAPH_NEIGHBORS_COUNT) with MPI_INEIGHBOR_ALLGATHER, and a
! persistent MPI_ALLREDUCE_INIT started twice. Prints PASS.
      program topocoll
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, i, g, d, req, kind, n, indeg, outdeg
      integer idx(64), edg(128), nbr(2), sb(2), rb(2), x, y
      integer src(1), dst(1)
      logical weighted
!     written or read by MPI outside the call that names them
      volatile x, y, rb

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      do i = 0, p - 1
         edg(2 * i + 1) = mod(i + p - 1, p)
         edg(2 * i + 2) = mod(i + 1, p)
         idx(i + 1) = 2 * (i + 1)
      end do
      call mpi_graph_create(MPI_COMM_WORLD, p, idx, edg, .false., g,
     &     ierr)
      call mpi_topo_test(g, kind, ierr)
      if (kind .ne. MPI_GRAPH) call fail('topo_test', kind)
      call mpi_graph_neighbors_count(g, rank, n, ierr)
      if (n .ne. 2) call fail('neighbors_count', n)
      call mpi_graph_neighbors(g, rank, 2, nbr, ierr)
      if (nbr(1) .ne. mod(rank + p - 1, p)) call fail('nbr1', nbr(1))
!     block j goes to neighbor j; from neighbor j comes the block it
!     sent to us (with parallel edges at p <= 2, in order)
      sb(1) = 1000 * rank + 1
      sb(2) = 1000 * rank + 2
      call mpi_neighbor_alltoall(sb, 1, MPI_INTEGER, rb, 1,
     &     MPI_INTEGER, g, ierr)
      if (p .gt. 2) then
         if (rb(1) .ne. 1000 * nbr(1) + 2) call fail('a2a 1', rb(1))
         if (rb(2) .ne. 1000 * nbr(2) + 1) call fail('a2a 2', rb(2))
      end if
      call mpi_comm_free(g, ierr)

      src(1) = mod(rank + p - 1, p)
      dst(1) = mod(rank + 1, p)
      call mpi_dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src,
     &     MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED, MPI_INFO_NULL,
     &     .false., d, ierr)
      call mpi_dist_graph_neighbors_count(d, indeg, outdeg, weighted,
     &     ierr)
      if (indeg .ne. 1 .or. outdeg .ne. 1) call fail('degrees', indeg)
      if (weighted) call fail('weighted', 1)
      x = 10 * rank
      rb(1) = -1
      call mpi_ineighbor_allgather(x, 1, MPI_INTEGER, rb, 1,
     &     MPI_INTEGER, d, req, ierr)
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      if (rb(1) .ne. 10 * src(1)) call fail('allgather', rb(1))
      call mpi_comm_free(d, ierr)

      call mpi_allreduce_init(x, y, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
      do i = 1, 2
         x = rank + i
         call mpi_start(req, ierr)
         call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
         if (y .ne. p * (p - 1) / 2 + p * i) call fail('allreduce', y)
      end do
      call mpi_request_free(req, ierr)
      if (rank .eq. 0) print *, 'PASS'
      call mpi_finalize(ierr)
      end

      subroutine fail(what, v)
      implicit none
      include 'mpif.h'
      character*(*) what
      integer v, ierr
      print *, 'FAIL ', what, v
      call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      end
