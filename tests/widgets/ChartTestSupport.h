// SPDX-License-Identifier: MIT
#pragma once
// What the chart tests share: the series of one kind a chart shows.
#include "widgets/charts/ChartPanel.h"

#include <QChart>
#include <QList>

namespace qs::test {

/// The series of exactly type T (not a subclass: a QLineSeries is not a QScatterSeries) in `panel`.
template <typename T> QList<T*> seriesOf(const ChartPanel& panel)
{
    QList<T*> out;
    for (QAbstractSeries* s : panel.chart()->series())
        if (auto* t = qobject_cast<T*>(s); t && t->metaObject() == &T::staticMetaObject)
            out.append(t);
    return out;
}

} // namespace qs::test
