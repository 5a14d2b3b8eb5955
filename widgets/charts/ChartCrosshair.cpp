// SPDX-License-Identifier: MIT
#include "widgets/charts/ChartCrosshair.h"

#include "widgets/charts/ChartPanel.h"

namespace qs {

ChartCrosshair::ChartCrosshair(QObject* parent)
    : QObject(parent)
{
}

void ChartCrosshair::join(ChartPanel* chart)
{
    if (!chart || members().contains(chart))
        return;
    m_members.append(chart);
    chart->setCrosshair(this);
}

QList<ChartPanel*> ChartCrosshair::members() const
{
    QList<ChartPanel*> out;
    for (const QPointer<ChartPanel>& m : m_members)
        if (m)
            out.append(m.data());
    return out;
}

void ChartCrosshair::move(ChartPanel* from, CrosshairAxis axis, const QVariant& at)
{
    if (axis == CrosshairAxis::None)
        return;
    for (ChartPanel* m : members())
        if (m != from && m->crosshairAxis() == axis)
            m->showCrosshair(at);
}

void ChartCrosshair::leave(ChartPanel* from)
{
    for (ChartPanel* m : members())
        if (m != from)
            m->showCrosshair({});
}

} // namespace qs
