! tests/fortran/intercomm.f: inter-communicators from Fortran: the lower
! and upper halves of MPI_COMM_WORLD joined by mpi_intercomm_create;
! mpi_comm_test_inter, mpi_comm_remote_size, mpi_comm_remote_group,
! a message to every remote rank (the status names the remote rank),
! an Allreduce and a Bcast with MPI_ROOT on it, then
! mpi_intercomm_merge with the upper half first. Prints PASS.
      program intercomm
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, half, ic, merged, ln, rn, me, i, v
      integer lower, rg, wg, r0, w0, s, mr, root
      integer st(MPI_STATUS_SIZE)
      logical flag

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      lower = 0
      if (rank .lt. p / 2) lower = 1
      call mpi_comm_split(MPI_COMM_WORLD, lower, rank, half, ierr)
      if (lower .eq. 1) then
         call mpi_intercomm_create(half, 0, MPI_COMM_WORLD, p / 2,
     &        5, ic, ierr)
         rn = p - p / 2
      else
         call mpi_intercomm_create(half, 0, MPI_COMM_WORLD, 0,
     &        5, ic, ierr)
         rn = p / 2
      endif
      call check(ierr .eq. MPI_SUCCESS, 'Intercomm_create')
      call mpi_comm_test_inter(ic, flag, ierr)
      call check(flag, 'Comm_test_inter')
      call mpi_comm_size(ic, ln, ierr)
      call check(ln .eq. p - rn, 'local size')
      call mpi_comm_remote_size(ic, i, ierr)
      call check(i .eq. rn, 'Comm_remote_size')
      call mpi_comm_remote_group(ic, rg, ierr)
      call mpi_comm_group(MPI_COMM_WORLD, wg, ierr)
      r0 = 0
      call mpi_group_translate_ranks(rg, 1, r0, wg, w0, ierr)
      if (lower .eq. 1) then
         call check(w0 .eq. p / 2, 'Comm_remote_group')
      else
         call check(w0 .eq. 0, 'Comm_remote_group')
      endif
      call mpi_group_free(rg, ierr)
      call mpi_group_free(wg, ierr)
      call mpi_comm_rank(ic, me, ierr)

c     each rank sends its world rank to every remote rank
      do i = 0, rn - 1
         call mpi_send(rank, 1, MPI_INTEGER, i, 3, ic, ierr)
      enddo
      do i = 0, rn - 1
         call mpi_recv(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 3, ic, st,
     &        ierr)
         if (lower .eq. 1) then
            call check(v .eq. p / 2 + st(MPI_SOURCE), 'recv source')
         else
            call check(v .eq. st(MPI_SOURCE), 'recv source')
         endif
      enddo

c     Allreduce: the sum of the remote group's world ranks
      call mpi_allreduce(rank, s, 1, MPI_INTEGER, MPI_SUM, ic, ierr)
      v = 0
      do i = 0, p - 1
         if ((i .lt. p / 2) .neqv. (lower .eq. 1)) v = v + i
      enddo
      call check(s .eq. v, 'Allreduce')

c     Bcast from the lower group's rank 0
      v = -1
      if (lower .eq. 1) then
         root = MPI_PROC_NULL
         if (me .eq. 0) root = MPI_ROOT
         if (me .eq. 0) v = 4242
      else
         root = 0
      endif
      call mpi_bcast(v, 1, MPI_INTEGER, root, ic, ierr)
      if (lower .eq. 0) call check(v .eq. 4242, 'Bcast')

c     merge, the upper half first (high = lower)
      call mpi_intercomm_merge(ic, lower .eq. 1, merged, ierr)
      call mpi_comm_rank(merged, mr, ierr)
      if (lower .eq. 1) then
         call check(mr .eq. p - p / 2 + rank, 'merge rank')
      else
         call check(mr .eq. rank - p / 2, 'merge rank')
      endif
      call mpi_comm_free(merged, ierr)
      call mpi_comm_free(ic, ierr)
      call mpi_comm_free(half, ierr)
      call mpi_finalize(ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL intercomm: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
