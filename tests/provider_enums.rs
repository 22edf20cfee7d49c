//! The three provider enums convert where their sets meet: every dialect that deltafold also
//! writes or builds requests for maps there and back, and every value outside the overlap is
//! given back unchanged.

use deltafold::encode::Target;
use deltafold::wire::WireFormat;
use deltafold::Dialect;

#[test]
fn dialects_and_targets_convert_where_both_exist() {
    for dialect in Dialect::ALL {
        match Target::try_from(dialect) {
            Ok(target) => assert_eq!(Dialect::try_from(target), Ok(dialect)),
            Err(back) => {
                assert_eq!(back, dialect);
                assert!(matches!(
                    dialect,
                    Dialect::Ollama | Dialect::Bedrock | Dialect::Cohere
                ));
            }
        }
    }
    for target in Target::ALL {
        let converted = Dialect::try_from(target);
        assert_eq!(converted.ok(), target.dialect());
        if Target::PROVIDERS.contains(&target) {
            assert_eq!(Target::try_from(converted.unwrap()), Ok(target));
        } else {
            assert_eq!(converted, Err(target));
        }
    }
}

#[test]
fn dialects_and_wire_formats_convert_where_both_exist() {
    let formats = [
        WireFormat::OpenAiChat,
        WireFormat::Anthropic,
        WireFormat::OpenAiResponses,
        WireFormat::Gemini,
        WireFormat::LangChain,
    ];
    for format in formats {
        match Dialect::try_from(format) {
            Ok(dialect) => assert_eq!(WireFormat::try_from(dialect), Ok(format)),
            Err(back) => assert_eq!(back, WireFormat::LangChain),
        }
    }
    let written: Vec<Dialect> = Dialect::ALL
        .into_iter()
        .filter(|dialect| WireFormat::try_from(*dialect).is_ok())
        .collect();
    let targets: Vec<Dialect> = Target::PROVIDERS
        .into_iter()
        .filter_map(Target::dialect)
        .collect();
    assert_eq!(
        written, targets,
        "requests are built for the providers written"
    );
}
