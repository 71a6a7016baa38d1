! tests/fortran/split.f: communicators from Fortran: Comm_split into
! even and odd ranks (key reverses the order), Comm_dup, Comm_compare,
! Comm_free, Comm_get_parent, Comm_disconnect, and on the new communicators Bcast, Gather, Scatter,
! Allgather, Alltoall and Barrier. Prints PASS.
      program split
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, sub, dup, srank, ssize, color, i, res
      integer root, want
      integer buf(64), all(64), one
      logical ok

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)

      color = mod(rank, 2)
      call mpi_comm_split(MPI_COMM_WORLD, color, -rank, sub, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. sub .ne. MPI_COMM_NULL,
     &     'Comm_split')
      call mpi_comm_size(sub, ssize, ierr)
      call mpi_comm_rank(sub, srank, ierr)
      want = (p - color + 1) / 2
      call check(ssize .eq. want, 'split size')
c     key = -rank: the highest world rank of the colour is rank 0
      call check(srank .eq. (ssize - 1) - rank / 2, 'split rank order')

c     a colour of MPI_UNDEFINED gives MPI_COMM_NULL
      call mpi_comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, one, ierr)
      call check(one .eq. MPI_COMM_NULL, 'split UNDEFINED')

      call mpi_comm_dup(sub, dup, ierr)
      call mpi_comm_compare(sub, dup, res, ierr)
      call check(res .eq. MPI_CONGRUENT, 'Comm_compare dup')
      call mpi_comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, res, ierr)
      call check(res .eq. MPI_IDENT, 'Comm_compare ident')
c     no parent; Comm_disconnect of a second dup resets its handle
      call mpi_comm_get_parent(one, ierr)
      call check(one .eq. MPI_COMM_NULL, 'Comm_get_parent')
      call mpi_comm_dup(sub, one, ierr)
      call mpi_comm_disconnect(one, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. one .eq. MPI_COMM_NULL,
     &     'Comm_disconnect')

c     collectives on the duplicate, every root
      do root = 0, ssize - 1
         do i = 1, 8
            buf(i) = -1
            if (srank .eq. root) buf(i) = 100 * root + i
         enddo
         call mpi_bcast(buf, 8, MPI_INTEGER, root, dup, ierr)
         ok = .true.
         do i = 1, 8
            if (buf(i) .ne. 100 * root + i) ok = .false.
         enddo
         call check(ok, 'Bcast')

         one = srank * 10 + color
         call mpi_gather(one, 1, MPI_INTEGER, all, 1, MPI_INTEGER,
     &        root, dup, ierr)
         if (srank .eq. root) then
            do i = 1, ssize
               call check(all(i) .eq. (i - 1) * 10 + color, 'Gather')
            enddo
         endif

         do i = 1, ssize
            all(i) = 1000 * root + i
         enddo
         call mpi_scatter(all, 1, MPI_INTEGER, one, 1, MPI_INTEGER,
     &        root, dup, ierr)
         call check(one .eq. 1000 * root + srank + 1, 'Scatter')
      enddo

      one = srank + 1
      call mpi_allgather(one, 1, MPI_INTEGER, all, 1, MPI_INTEGER,
     &     sub, ierr)
      do i = 1, ssize
         call check(all(i) .eq. i, 'Allgather')
      enddo

      do i = 1, ssize
         buf(i) = srank * 100 + (i - 1)
      enddo
      call mpi_alltoall(buf, 1, MPI_INTEGER, all, 1, MPI_INTEGER,
     &     sub, ierr)
      do i = 1, ssize
         call check(all(i) .eq. (i - 1) * 100 + srank, 'Alltoall')
      enddo

      call mpi_barrier(sub, ierr)
      call mpi_comm_free(dup, ierr)
      call check(dup .eq. MPI_COMM_NULL, 'Comm_free sets NULL')
      call mpi_comm_free(sub, ierr)

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL split: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
