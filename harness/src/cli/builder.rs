//! `run`'s options through clap's builder API. A suite binary parses only these, and clap's
//! derive would make every bench build compile syn with `full` (clap_derive's need), the largest
//! unit of a criterion drop-in's build. The text is what the derive wrote: a doc comment's first
//! paragraph without its final period. The CLI's other commands keep the derive (`full`), which
//! flattens these through the [`clap::Args`] impls of [`builder_args!`].

use std::any::Any;

use clap::{Arg, ArgAction, ArgGroup, ArgMatches, Command};

/// A switch `--long` (false unless given).
pub(crate) fn switch(id: &'static str, long: &'static str, help: &'static str) -> Arg {
    Arg::new(id).action(ArgAction::SetTrue).help(help).long(long)
}

/// An option `--long VALUE` parsed by `parser`.
pub(crate) fn value(
    id: &'static str,
    long: &'static str,
    value_name: &'static str,
    parser: impl Into<clap::builder::ValueParser>,
    help: &'static str,
) -> Arg {
    Arg::new(id)
        .value_parser(parser)
        .action(ArgAction::Set)
        .help(help)
        .long(long)
        .value_name(value_name)
}

/// `args` added to `cmd` under the group `name` (as the derive groups a struct's fields).
pub(crate) fn group(cmd: Command, name: &'static str, args: impl IntoIterator<Item = Arg>) -> Command {
    let args: Vec<Arg> = args.into_iter().collect();
    let ids: Vec<clap::Id> = args.iter().map(|a| a.get_id().clone()).collect();
    cmd.group(ArgGroup::new(name).multiple(true).args(ids)).args(args)
}

/// The value of an option, if given.
pub(crate) fn one<T: Any + Clone + Send + Sync + 'static>(m: &mut ArgMatches, id: &str) -> Option<T> {
    m.remove_one(id)
}

/// The value of an option with a default (so always present).
pub(crate) fn defaulted<T: Any + Clone + Send + Sync + 'static>(m: &mut ArgMatches, id: &str) -> Result<T, clap::Error> {
    m.remove_one(id).ok_or_else(|| {
        clap::Error::raw(
            clap::error::ErrorKind::MissingRequiredArgument,
            format!("the following required argument was not provided: {id}"),
        )
    })
}

/// Whether a switch was given.
pub(crate) fn given(m: &mut ArgMatches, id: &str) -> bool {
    m.remove_one::<bool>(id).unwrap_or(false)
}

/// Every value of a repeatable option or positional.
pub(crate) fn many<T: Any + Clone + Send + Sync + 'static>(m: &mut ArgMatches, id: &str) -> Vec<T> {
    m.remove_many(id).map(Iterator::collect).unwrap_or_default()
}

/// [`clap::Args`] and [`clap::FromArgMatches`] for a struct with `fn augment(Command) -> Command`
/// and `fn from_matches(&mut ArgMatches) -> Result<Self, clap::Error>`, so a derived command can
/// `#[command(flatten)]` it.
macro_rules! builder_args {
    ($ty:ty, $group:literal) => {
        impl clap::FromArgMatches for $ty {
            fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
                Self::from_arg_matches_mut(&mut m.clone())
            }
            fn from_arg_matches_mut(m: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
                Self::from_matches(m)
            }
            fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
                *self = Self::from_arg_matches(m)?;
                Ok(())
            }
        }
        impl clap::Args for $ty {
            fn group_id() -> Option<clap::Id> {
                Some(clap::Id::from($group))
            }
            fn augment_args(cmd: clap::Command) -> clap::Command {
                Self::augment(cmd)
            }
            fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
                Self::augment(cmd)
            }
        }
    };
}
pub(crate) use builder_args;

/// [`clap::ValueEnum`] for a fieldless enum: `value_enum!(T { Variant => "name", "help" ... })`.
macro_rules! value_enum {
    ($ty:ty { $($variant:ident => $name:literal, $help:literal),+ $(,)? }) => {
        impl clap::ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &[$(Self::$variant),+]
            }
            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(match self {
                    $(Self::$variant => clap::builder::PossibleValue::new($name).help($help)),+
                })
            }
        }
    };
}
pub(crate) use value_enum;
