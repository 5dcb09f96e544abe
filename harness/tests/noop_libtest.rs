//! 200 no-op `#[test]`s: the libtest side of the overhead comparison (scripts/overhead.sh).

macro_rules! group {
    ($($m:ident)*) => {
        $( mod $m {
            #[test] fn t0() {} #[test] fn t1() {} #[test] fn t2() {} #[test] fn t3() {} #[test] fn t4() {}
            #[test] fn t5() {} #[test] fn t6() {} #[test] fn t7() {} #[test] fn t8() {} #[test] fn t9() {}
        } )*
    };
}

group!(a00 a01 a02 a03 a04 a05 a06 a07 a08 a09 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19);
