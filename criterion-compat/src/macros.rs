//! `criterion_group!` and `criterion_main!`, with criterion's syntax. A group is still a plain
//! `pub fn NAME()` calling its targets; `criterion_main!` registers the groups with the harness
//! and makes `main` the harness's.

/// Define a group function: `criterion_group!(benches, f, g)` or
/// `criterion_group!{ name = benches; config = Criterion::default(); targets = f, g }`.
#[macro_export]
macro_rules! criterion_group {
    (name = $name:ident; config = $config:expr; targets = $( $target:path ),+ $(,)*) => {
        pub fn $name() {
            let mut criterion: $crate::Criterion<_> = $config.configure_from_args();
            $(
                $target(&mut criterion);
            )+
        }
    };
    ($name:ident, $( $target:path ),+ $(,)*) => {
        $crate::criterion_group! {
            name = $name;
            config = $crate::Criterion::default();
            targets = $( $target ),+
        }
    };
}

/// The bench binary's `main`: every benchmark of the groups becomes a harness measurement, and
/// `main` is `harness::main()` (so `cargo bench`, `cargo test --benches`, nextest and the
/// harness's commands all work on it).
#[macro_export]
macro_rules! criterion_main {
    ( $( $group:path ),+ $(,)* ) => {
        static __HARNESS_CRITERION_GROUPS: &[$crate::__private::Group] = &[
            $( $crate::__private::Group { name: ::core::stringify!($group), run: $group } ),+
        ];

        $crate::__private::harness::scenarios!(|| $crate::__private::scenarios(__HARNESS_CRITERION_GROUPS));

        fn main() -> ::std::process::ExitCode {
            $crate::__private::harness::main()
        }
    };
}
