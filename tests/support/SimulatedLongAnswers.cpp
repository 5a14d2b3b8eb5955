// SPDX-License-Identifier: MIT
// The long table of SimulatedAnswers.h: advice, explanations and stories of a spoken paragraph
// (about 100 to 150 words, 130 to 200 tokens: under a minute of speech), and the general rule
// behind them for any other "tell me about …".
#include "tests/support/SimulatedAnswers.h"
#include "tests/support/SimulatedText.h"

#include <QRegularExpression>

namespace qs::emu::detail {

namespace {

const Topic kLongTopics[] = {
    // ---- conversational advice
    {"unwind", nullptr, Intent::Advice, "a warm bath",
        "I'm sorry it's been such a draining day, you've earned a gentle evening. You could start with a "
        "short "
        "walk, even ten minutes of fresh air helps your head switch off from work. After that, something "
        "warm "
        "and simple for dinner, and maybe a warm bath or shower to let your shoulders drop. If you like "
        "music, "
        "put on an album you love and let it play all the way through while you tidy nothing at all. A "
        "chapter "
        "of a good book or a cosy film is a lovely way to round it off, and try to keep your phone in "
        "another "
        "room for the last hour. Most of all, be kind to yourself tonight. Is there one of those that sounds "
        "good to you?",
        "She is drained after work. Acknowledge it, then a few gentle ideas in spoken sentences: a walk, a "
        "warm "
        "meal, a bath, music, a book, less phone."},
    {"calm my nerves", nullptr, Intent::Advice, "",
        "Nerves before a big presentation are completely normal, and they usually mean you care about doing "
        "it "
        "well. The best cure is preparation you can trust, so run through it out loud two or three times, "
        "and "
        "once in front of someone if you can. Know your first minute by heart, because once you're past the "
        "opening the rest tends to flow. On the morning itself, give yourself extra time so you're not "
        "rushing, "
        "and before you start, take a few slow breaths, breathing out for longer than you breathe in. It "
        "also "
        "helps to remember that the client wants you to do well. They're there to hear your ideas, not to "
        "catch "
        "you out. You'll be great.",
        "Presentation nerves. Normalise them, then practical steps: rehearse aloud, know the opening, time, "
        "slow breathing, the audience is on her side."},
    {"reading", "boring|fun", Intent::Advice, "",
        "That's a really common phase, and the good news is it usually passes once reading feels like a "
        "treat "
        "again rather than homework. Let him choose what he reads, even if it's comics, joke books or "
        "football "
        "annuals, because any reading counts. Funny series with lots of pictures can be a great bridge. You "
        "could read together at bedtime, taking turns with the voices, and stop on a cliffhanger so he wants "
        "to "
        "know what happens next. Audiobooks on car journeys help too. A trip to the library where he picks "
        "his "
        "own books, or a book linked to something he loves, like dinosaurs or football, can spark it all "
        "over "
        "again. Keep it relaxed and he'll come back to it.",
        "A nine-year-old finds reading boring. Ideas: his choice, comics count, reading together, "
        "cliffhangers, "
        "audiobooks, library, his interests."},
    {"middle of the night", nullptr, Intent::Advice, "",
        "That sounds exhausting, and you're definitely not alone. A few things often help. Try to keep the "
        "same "
        "wake-up time every day, even at weekends, and get some daylight in the morning. Cut back on "
        "caffeine "
        "after lunch and go easy on alcohol, which often wakes people in the early hours. If you do wake up, "
        "don't check the time or your phone. If you're still awake after about twenty minutes, get up, sit "
        "somewhere dim and do something calm, like reading, then go back to bed when you feel sleepy. "
        "Jotting "
        "down worries before bed can quiet a busy mind. If it carries on for a few weeks, it's worth a chat "
        "with "
        "your doctor.",
        "Night waking. Sympathise, then sleep hygiene: regular wake time, daylight, caffeine, alcohol, no "
        "phone, "
        "get up after twenty minutes, worry list, see a doctor if it persists."},
    {"running", "ease|back into", Intent::Advice, "",
        "That's a great thing to pick back up, and easing in is exactly the right idea. Start with walk-run "
        "sessions, say one minute of easy running and two of walking, repeated for about twenty minutes, "
        "three "
        "times a week with rest days in between. Run slowly enough that you could chat, because pace can "
        "come "
        "later. Each week, add a little more running and a little less walking, and don't increase your "
        "total "
        "by more than about ten percent. A decent pair of running shoes makes a real difference. Warm up "
        "with a "
        "brisk walk, and if anything hurts rather than just aches, rest it for a few days. In a couple of "
        "months "
        "you'll be surprised how far you've come.",
        "Returning to running. Walk-run intervals, easy pace, gradual increase, good shoes, rest days, "
        "listen to "
        "pain."},
    {"anniversary", "special|thoughtful", Intent::Advice, "",
        "What a lovely thing to be planning. Small, personal touches often mean the most. You could leave a "
        "little note somewhere he'll find it in the morning, perhaps remembering a favourite moment from "
        "your "
        "years together. Making his favourite breakfast or coffee is a simple way to start the day well. If "
        "you "
        "have old photos, a few printed ones tucked into a card can be really touching. Later on, you could "
        "recreate something from your early days, like the song from your first dance or a dessert you "
        "shared on "
        "a first date. And putting your phones away for the evening, so it's just the two of you, is a gift "
        "in "
        "itself. Happy anniversary!",
        "Anniversary ideas: small and personal, a note, breakfast, photos, recreating a memory, phones "
        "away."},
    {"long-distance", nullptr, Intent::Advice, "",
        "I'm sorry, missing a close friend is hard, especially when you're used to having her nearby. The "
        "friendships that last the distance usually have a little rhythm to them. You could set up a regular "
        "video call, maybe once a fortnight, and treat it like a proper catch-up with a cup of tea. In "
        "between, "
        "small things keep you close: a voice note on the way to work, a photo of something that reminded "
        "you "
        "of her, or a book you both read and talk about. Watching the same film at the same time can be fun "
        "too. "
        "Sending the odd letter or parcel feels special in a digital world. And having a visit to look "
        "forward "
        "to, even a year away, gives you both something to plan together.",
        "A friend abroad. Acknowledge missing her, then rituals: regular calls, voice notes, shared books or "
        "films, post, planning a visit."},
    {"waste less", nullptr, Intent::Advice, "",
        "That's a really worthwhile thing to tackle, and small habits make a big difference. Before you "
        "shop, "
        "take a quick look in the fridge and plan a few meals for the week, then write a list and stick to "
        "it. "
        "When you unpack, move older things to the front so they get used first. Your freezer is your best "
        "friend: bread, leftovers, ripe bananas and even grated cheese all freeze well. Cook a little less "
        "than "
        "you think you need, and turn leftovers into lunch the next day. It also helps to know that best "
        "before "
        "dates are about quality, while use by dates are about safety. Having one clear-out meal a week, "
        "like a "
        "soup or a stir fry, uses up the odds and ends.",
        "Less food waste: plan and list, first in first out, freezer, smaller portions, leftovers, date "
        "labels, "
        "a clear-out meal."},

    // ---- longer explanations and a story
    {"rainbow", nullptr, Intent::Explain, "sunlight",
        "Here's a simple way to put it. Sunlight looks white, but it's actually made of all the colours "
        "mixed "
        "together. When the sun shines on raindrops, each little drop acts like a tiny prism. The light "
        "bends as "
        "it goes into the drop, bounces off the back, and bends again on the way out. Each colour bends by a "
        "slightly different amount, so the white light spreads out into red, orange, yellow, green, blue and "
        "violet. That's why you only see a rainbow when the sun is behind you and the rain is in front of "
        "you. "
        "Millions of raindrops each send one colour to your eyes, and together they paint the arch across "
        "the "
        "sky.",
        "Explain rainbows for a child: white light is all colours, raindrops bend and reflect it, colours "
        "bend "
        "differently, sun behind you."},
    {"pyramids", nullptr, Intent::Explain, "about 4,500 years ago",
        "The Great Pyramid was built about 4,500 years ago for the pharaoh Khufu, and it took around twenty "
        "years. "
        "Contrary to the old stories, it wasn't built by slaves but by thousands of paid workers, who lived "
        "in a "
        "town nearby and were fed bread, beer and meat. The limestone blocks were cut from quarries close to "
        "the "
        "site with copper tools, while the finer stone came by boat along the Nile. Workers most likely "
        "dragged "
        "the blocks on wooden sledges, pouring water on the sand in front to make them slide more easily, "
        "and "
        "hauled them up long ramps as the pyramid rose. It was an astonishing feat of planning, and it "
        "stayed the "
        "tallest building in the world for almost four thousand years.",
        "The pyramids of Giza: Khufu, about 4,500 years ago, paid workers, quarries and the Nile, sledges, "
        "wet "
        "sand, ramps."},
    {"vaccine", nullptr, Intent::Explain, "immune system",
        "Think of a vaccine as a practice run for your immune system. Your body fights germs by recognising "
        "their shape and making antibodies that lock onto them. The first time it meets a new germ, that "
        "takes "
        "a while, which is why you get ill. A vaccine shows your body a harmless version of the germ, or "
        "just a "
        "piece of it, or instructions to make that piece, so it can learn what the real thing looks like "
        "without you getting sick. Your immune system then builds antibodies and special memory cells. If "
        "the "
        "real germ turns up later, those memory cells recognise it straight away and fight it off quickly, "
        "often "
        "before you even notice. That's why some vaccines need a booster now and then, to refresh the "
        "memory.",
        "Vaccines in plain words: a safe preview of the germ, antibodies and memory cells, a fast response "
        "later, boosters."},
    {"hedgehog", nullptr, Intent::Explain, "Hazel",
        "Once upon a time, at the bottom of a big green garden, there lived a little hedgehog called Hazel. "
        "Hazel was the smallest hedgehog in the hedge, and the other animals said she was too tiny for "
        "adventures. One autumn evening, a baby mouse got lost in the tall grass as a storm rolled in. While "
        "everyone else hid, Hazel took a deep breath, curled her prickles tight against the wind, and set "
        "off "
        "through the rain. She followed the mouse's tiny squeaks all the way to the old watering can, and "
        "guided him safely home by the light of the fireflies. From that night on, nobody ever called Hazel "
        "too "
        "small again. And as she snuggled into her bed of leaves, she smiled, because being brave isn't "
        "about "
        "being big. Goodnight, little one.",
        "A bedtime story: gentle, about a hundred and forty words, a small hedgehog who is brave, a calm "
        "ending."},
};

QString explainTopic(const QString& message)
{
    static const QRegularExpression re(
        QStringLiteral(
            "(?:tell me (?:a bit |a little |more )?about|explain(?: to me)?|describe|what do you know "
            "about|overview of|how does)\\s+(.+?)(?:\\s+work)?[?.!]*$"),
        QRegularExpression::CaseInsensitiveOption);
    QString topic = stripEndPunctuation(re.match(message.trimmed()).captured(1));
    topic.remove(QRegularExpression(QStringLiteral("\\s+in (?:some |a bit of |great )?detail$"),
        QRegularExpression::CaseInsensitiveOption));
    return topic.isEmpty() ? QStringLiteral("that topic") : topic;
}

} // namespace

std::span<const Topic> longTopics()
{
    return kLongTopics;
}

std::optional<Answer> explainAnswer(const QString& message, quint64 variant)
{
    static const Needles explainWords
        = {"tell me about", "tell me a bit about", "tell me a little about", "tell me more about", "explain",
            "describe", "what do you know about", "overview of", "in detail", "story"};
    if (!hasAny(message.toLower(), explainWords))
        return std::nullopt;
    Answer out;
    out.intent = Intent::Explain;
    static const QRegularExpression story(
        QStringLiteral("\\bstor(?:y|ies)\\b"), QRegularExpression::CaseInsensitiveOption);
    if (message.contains(story)) { // a story, not a history
        out.keyPhrase = QStringLiteral("Elena");
        out.text = QStringLiteral(
            "Once upon a time, in a small town by the sea, there lived a lighthouse keeper named Elena. "
            "Every "
            "night she climbed the winding stairs to light the lamp, and every night she wondered who the "
            "ships "
            "were carrying. One stormy evening a little boat drifted close to the rocks, and Elena guided it "
            "safely home with her light. Inside was a young girl who had run away to find adventure. Elena "
            "made "
            "her cocoa, told her stories of the sea, and walked her home at dawn. From then on the girl "
            "visited "
            "every week, and the two became the best of friends.");
        out.thought
            = QStringLiteral("The user wants a story. Keep it gentle, about a hundred words, no lists.");
        return out;
    }
    const QString topic = explainTopic(message);
    out.keyPhrase = topic;
    out.thought = QStringLiteral("The user wants an explanation of ") + topic
        + QStringLiteral(". Give a short, friendly overview without lists or headings.");
    if (variant % 2 == 0) {
        out.text = QStringLiteral("Here's a short overview of ") + topic
            + QStringLiteral(
                ". At its heart, it comes down to a few simple ideas that fit together in a "
                "surprisingly elegant way. Most people start with the basics and only later notice "
                "how much depth there is once they look closer. Over the years it has shaped how "
                "many of us think, work and spend our free time, and new ideas keep building on the "
                "old ones. The easiest way to really understand it is to try a small part yourself "
                "and see how it feels. If you like, I can go deeper into any part of it.");
    } else {
        out.text = QStringLiteral("There's a lot to love about ") + topic
            + QStringLiteral(
                ". The short version is that it grew out of people "
                "trying to solve everyday problems, and over time those small solutions added up "
                "to something much bigger. What makes it interesting is how the pieces connect: each "
                "idea leads naturally to the next, and you start seeing it everywhere once you know "
                "what to look for. Many people find that learning a little about it changes how they "
                "see the world around them. If you want, I can walk you through the key ideas next.");
    }
    out.elaboration
        = QStringLiteral("There is a lot more to say about the history, the key people involved and "
                         "the debates that still go on today.");
    return out;
}

} // namespace qs::emu::detail
